// The ranking options of the search backends (zod, from the kernel): an entry of its own, so that the analysis
// entry loads nothing of the kernel (an index worker imports it).
import { z } from '@pro-context/kernel';

const weight = (fallback: number, what: string) =>
  z.number().positive().max(100).default(fallback).describe(`Weight of a match in ${what}.`);

/**
 * The options of the ranking itself — typo tolerance, field weights, language — which every search backend that
 * ranks like this one takes (`packed-search` builds its schema on them).
 */
export const rankingOptionsShape = {
  tolerance: z
    .number()
    .int()
    .min(0)
    .max(2)
    .default(1)
    .describe(
      'Typo tolerance: edits allowed in a query word the index does not contain (a swap of two letters is one ' +
        'edit). Words under 5 letters never get one, two edits need 9 letters or more. 0 turns typos off.',
    ),
  boost: z
    .strictObject({
      title: weight(1, 'the page title'),
      section: weight(1, "the chunk's own heading"),
      headings: weight(1, "the headings between the page title and the chunk's own heading"),
      body: weight(1, 'the chunk text'),
    })
    .prefault({})
    .describe(
      'Field weights of the BM25 part of the score (0.3 of it; the rest is the share of query words a chunk ' +
        'contains, weighted by rarity, wherever they are). Equal by default: measured, heading boosts ranked worse.',
    ),
  language: z.enum(['english']).default('english').describe('Language of the stemmer and stop words.'),
};
