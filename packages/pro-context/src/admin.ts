#!/usr/bin/env node
import { Command } from 'commander';
import { PRESET_VERSION } from './preset.js';

/** `pro-context-admin`: administration of a team server (API keys and usage arrive with the HTTP host). */
const program = new Command('pro-context-admin')
  .description('Administer a pro-context team server: API keys, usage per key.')
  .version(PRESET_VERSION, '-v, --version', 'print the version')
  .showHelpAfterError();

program.action(() => program.help());

await program.parseAsync(process.argv);
