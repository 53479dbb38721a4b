import { describe, expect, it } from 'vitest';
import { americanSpelling } from '../src/spelling.js';

describe('americanSpelling', () => {
  it.each([
    ['serialise', 'serialize'],
    ['serialised', 'serialized'],
    ['serialising', 'serializing'],
    ['serialiser', 'serializer'],
    ['serialisation', 'serialization'],
    ['customisable', 'customizable'],
    ['initialise', 'initialize'],
    ['analyse', 'analyze'],
    ['behaviour', 'behavior'],
    ['behavioural', 'behavioral'],
    ['favourites', 'favorites'],
    ['cancelled', 'canceled'],
    ['modelling', 'modeling'],
    ['labelled', 'labeled'],
    ['centre', 'center'],
    ['centred', 'centered'],
    ['catalogue', 'catalog'],
    ['licence', 'license'],
  ])('%s → %s', (british, american) => {
    expect(americanSpelling(british)).toBe(american);
  });

  it.each([
    'promise',
    'promised',
    'premises',
    'compromise',
    'exercise',
    'precise',
    'advise',
    'revised',
    'supervisor',
    'comprise',
    'surprising',
    'enterprise',
    'expertise',
    'franchise',
    'merchandise',
    'advertising',
    'otherwise',
    'pairwise',
    'raise',
    'noise',
    'cruise',
    'rise',
    'wise',
    'analysis',
    'basis',
    'this',
    'hour',
    'tour',
    'called',
    'installed',
    'controlled',
    'are',
    'serialize',
  ])('leaves %s alone', (word) => {
    expect(americanSpelling(word)).toBe(word);
  });
});
