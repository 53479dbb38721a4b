import { defineErrors, registerErrors } from '@pro-context/kernel';

/** The runtime's own codes, raised by `kernel.use()`; registered with the kernel's when the runtime loads. */
export const runtimeErrors = defineErrors({
  PLUGIN_DUPLICATE_ID: {
    recoverable: false,
    suggestion: 'Install each plugin once; remove the duplicate.',
    message: "Plugin '{plugin}' is registered twice.",
  },
  PLUGIN_KERNEL_MISMATCH: {
    recoverable: false,
    suggestion: 'Install a plugin release built for this kernel, or a kernel in the range the plugin needs.',
    message: "Plugin '{plugin}'{version} needs kernel {range}, but this kernel is {kernelVersion}.",
  },
});

registerErrors([{ owner: 'runtime', errors: runtimeErrors.errors }]);
