#!/usr/bin/env node
// Rewrites libraries.schema.json from the zod schema (run after a build: `pnpm --filter @pro-context/known-libraries schema`).
import { writeFileSync } from 'node:fs';
import { librariesJsonSchemaText, librariesSchemaFile } from '../dist/json-schema.js';

const target = new URL(`../${librariesSchemaFile}`, import.meta.url);
writeFileSync(target, librariesJsonSchemaText());
console.error(`wrote ${target.pathname}`);
