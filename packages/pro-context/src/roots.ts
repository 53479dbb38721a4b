import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { projectConfigSection } from '@pro-context/engine';
import { libraryProviderToken, type StartedKernel } from '@pro-context/kernel';
import { ProjectLibraryProvider } from '@pro-context/plugin-project/plugin';

/**
 * Follows the MCP client's `roots` (the folders the agent works in) for project detection, over stdio, where the
 * client and the server share a machine: after `initialized`, when the client declares the `roots` capability,
 * `roots/list` is asked and its `file://` folders are scanned as the project (instead of the folder the server was
 * started in); `notifications/roots/list_changed` scans again. A project named by the configuration
 * (`project.root`, `PRO_CONTEXT_PROJECT`, `--project`) or `project.autoDetect: false` is left as it is. The scan
 * of the roots starts once `backgroundStarted` resolves (the stdio server: after `tools/list` was answered).
 */
export function followClientRoots(
  server: McpServer,
  kernel: StartedKernel,
  backgroundStarted: Promise<void> = Promise.resolve(),
): void {
  const project = projectConfigSection.read(kernel.config);
  if (!project.autoDetect || project.root) return;
  const detection = kernel
    .resolveAll(libraryProviderToken)
    .find((p): p is ProjectLibraryProvider => p instanceof ProjectLibraryProvider);
  if (!detection) return;
  const logger = kernel.logger.child({ component: 'project' });
  const rescan = async () => {
    if (!server.server.getClientCapabilities()?.roots) return;
    const { roots } = await server.server.listRoots();
    const folders = roots.flatMap((root) => {
      try {
        return root.uri.startsWith('file:') ? [fileURLToPath(root.uri)] : [];
      } catch {
        return [];
      }
    });
    if (folders.length === 0) {
      logger.info("the client's roots name no local folder: project detection keeps the working directory's");
      return;
    }
    // once the background phases (the working directory's scan, which this one replaces) have started: not
    // before the first answers (tools/list) are out
    await backgroundStarted;
    await kernel.background();
    logger.info(`project detection follows the client's roots: ${folders.join(', ')}`);
    detection.start({ roots: folders }, { logger });
  };
  const failed = (error: unknown) => logger.warn("the client's roots could not be read", { error });
  const previous = server.server.oninitialized;
  server.server.oninitialized = () => {
    previous?.();
    void rescan().catch(failed);
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await rescan().catch(failed);
  });
}
