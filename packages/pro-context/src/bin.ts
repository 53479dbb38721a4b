#!/usr/bin/env node
/**
 * The `pro-context` command. Before the program loads (imported after this), the main thread's young generation is
 * held at its initial size ({@link holdYoungGeneration}): loading the program alone would grow V8's new space to
 * 16 MB, a size it then keeps for the life of the process. The serving command releases it if
 * `server.holdYoungGeneration` is false.
 */
import { holdYoungGeneration } from './heap.js';

holdYoungGeneration();
await import('./cli.js');
