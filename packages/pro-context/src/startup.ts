import { libraryProviderToken, type StartedKernel } from '@pro-context/kernel';
import { createToolRunner, type ToolRunner } from '@pro-context/tool-runner';

/** How long a tool call waits for the project scan before answering without it (ms). */
export const PROJECT_WAIT_MS = Number(process.env.PRO_CONTEXT_PROJECT_WAIT_MS) || 5000;

/** How long after answering `tools/list` the stdio server starts the background phases (ms). */
export const AFTER_TOOLS_LIST_MS = 100;

/** How long after `initialized` the stdio server starts the background phases if no tools/list or call came (ms). */
export const STARTUP_FALLBACK_MS = 1000;

/**
 * Runs the kernel's background phases (the project scan) if nothing has yet, then waits, at most `waitMs`, for
 * the providers whose libraries arrive late (project detection, the installed packages it names) to settle.
 * Resolves true when they did, false when `waitMs` passed first (the scan goes on; the caller answers without it).
 */
export async function projectSettled(kernel: StartedKernel, waitMs = PROJECT_WAIT_MS): Promise<boolean> {
  await kernel.background();
  const pending = kernel.resolveAll(libraryProviderToken).flatMap((p) => (p.settled ? [p.settled()] : []));
  if (pending.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    Promise.all(pending).then(() => true),
    new Promise<boolean>((done) => {
      timer = setTimeout(() => done(false), waitMs);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}

/** A tool runner that starts the kernel's background phases late, and when it did. */
export interface DeferredStart {
  runner: ToolRunner;
  /** Resolves when the background phases were started (after `tools/list` was answered, or at the first call). */
  started: Promise<void>;
  /**
   * Starts them at the latest `ms` from now, for a client that never lists the tools nor calls one (it may read
   * resources only): the server calls it once the client is initialized.
   */
  startWithin(ms: number): void;
}

/**
 * The stdio server's tool runner: start-up at the floor. The kernel is started with `deferBackground`, so
 * nothing the first answers do not need (the project scan, the background resolution of what it finds) runs
 * before them; this runner starts the background phases {@link AFTER_TOOLS_LIST_MS} after `tools/list` was
 * answered (the listings a client asks with it, resources and prompts, go out first), or at the first tool call
 * if that comes first. A tool
 * call waits for the late providers to settle ({@link projectSettled}, bounded), so the first `get-docs` sees
 * the project's installed versions as a server that has been running a while does; later calls find them
 * settled and do not wait. A client that does neither gets them {@link DeferredStart.startWithin} a moment after it
 * initialized.
 */
export function deferredStart(kernel: StartedKernel, base: ToolRunner = createToolRunner(kernel)): DeferredStart {
  let begin: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    begin = resolve;
  });
  let scheduled = false;
  let soon = false;
  const startNow = (why: string) => {
    if (!scheduled) kernel.logger.debug(`background phases started (${why})`);
    scheduled = true;
    begin();
    return kernel.background();
  };
  const startSoon = () => {
    if (scheduled || soon) return;
    soon = true;
    // after the answer that read the tools is written, and the listings a client asks with it (resources,
    // prompts) are answered: a tool call does not wait for this, it starts them itself
    setTimeout(() => void startNow('tools/list answered'), AFTER_TOOLS_LIST_MS).unref();
  };
  let warned = false;
  const runner: ToolRunner = {
    get tools() {
      const tools = base.tools;
      startSoon();
      return tools;
    },
    definition: (name) => base.definition(name),
    async call(name, args, options) {
      await startNow(`${name} called`);
      if (!(await projectSettled(kernel)) && !warned) {
        warned = true;
        kernel.logger.warn(
          `the project scan took more than ${PROJECT_WAIT_MS / 1000} s: answering without the project's libraries until it ends`,
        );
      }
      return base.call(name, args, options);
    },
  };
  const startWithin = (ms: number) => {
    setTimeout(() => void startNow(`${ms} ms after initialized`), ms).unref();
  };
  return { runner, started, startWithin };
}
