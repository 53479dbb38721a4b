/** Parse options for a schema parsed once, as configuration is at start-up (the kernel's `ONCE`: no zod JIT). */
export const ONCE = { jitless: true } as const;
