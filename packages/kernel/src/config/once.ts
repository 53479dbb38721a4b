/**
 * Parse options for a schema parsed once, as configuration is at start-up: on an object schema's first parse zod
 * compiles a fast path for it (`new Function`), which pays off over many parses and only costs on one — some
 * 15 ms of every start for the kernel's and the plugins' sections.
 */
export const ONCE = { jitless: true } as const;
