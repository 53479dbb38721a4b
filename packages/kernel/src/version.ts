import { createRequire } from 'node:module';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/** This kernel's version, checked against each plugin's `kernel` range. */
export const KERNEL_VERSION: string = pkg.version;
