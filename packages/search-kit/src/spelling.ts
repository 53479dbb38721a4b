/**
 * British → American spelling, so `serialise` finds `serialize` (and the other way round): both the index
 * and queries go through it before stemming. Rules, not a dictionary, for the regular families (-ise,
 * -isation, -yse), short lists for the irregular ones (-our, -ll-, -tre, -ogue, -ence). Only word forms
 * that are unambiguous in either spelling are rewritten.
 */

// -ise/-ised/-ises/-ising/-iser/-isers/-isation(s)/-isable: the American -ize family.
const ISE = /^([a-z]{3,})is(e|ed|es|ing|er|ers|ation|ations|able)$/;
// Words whose -ise is not that suffix. Letters before `ise` that never form -ize verbs are ruled out
// below instead of listed: a vowel (raise, noise, cruise), w (otherwise, likewise, pairwise), c (precise,
// exercise), v (advise, revise), `pr` (comprise, surprise, enterprise).
const ISE_EXCEPTIONS = new Set([
  'prom',
  'prem',
  'comprom',
  'dem',
  'surm',
  'rem',
  'chem',
  'expert',
  'treat',
  'mort',
  'chast',
  'franch',
  'disenfranch',
  'merchand',
  'parad',
  'an',
  'val',
  'cer',
  'desp',
  'advert',
]);
const NOT_ISE = /(?:[aeiouwycv]|pr)$/;
// -yse verbs (analyse, paralyse, catalyse).
const YSE = /^(analy|paraly|cataly)s(e|ed|es|ing|er|ers)$/;
// -our words: the root, matched at the start so `behavioural` and `favourites` follow.
const OUR = /^(behavi|col|fav|hon|flav|lab|neighb|hum|rum|harb|vap|arm|endeav|sav|parl|od|rig|vig|val|clam)our/;
// Doubled l before a suffix in British spelling (cancelled, modelling, labelled, marshalling).
const DOUBLE_L =
  /^(cancel|model|label|travel|signal|marshal|unmarshal|level|fuel|channel|tunnel|total|dial|jewel|funnel|panel|pedal|shovel|rival|equal)l(ed|ing|er|ers)$/;
// -tre (centre, metre, litre, fibre, theatre, calibre).
const TRE = /^(cent|met|lit|fib|theat|calib|sab)re(s|d)?$/;
const TRE_SUFFIX: Readonly<Record<string, string>> = { s: 's', d: 'ed' };
// -ogue (catalogue, dialogue, analogue).
const OGUE = /^(catal|dial|anal)ogue(s)?$/;
const ENCE: Readonly<Record<string, string>> = {
  licence: 'license',
  licences: 'licenses',
  defence: 'defense',
  defences: 'defenses',
  offence: 'offense',
  offences: 'offenses',
  pretence: 'pretense',
};

/** The American spelling of a lowercased word, or the word itself. */
export function americanSpelling(word: string): string {
  // Cheap filter: every rule below needs one of these letter pairs.
  if (!/is|ys|our|ll|re|ogue|ence/.test(word)) return word;
  const ise = ISE.exec(word);
  if (ise !== null) {
    const root = ise[1] as string;
    if (!NOT_ISE.test(root) && !ISE_EXCEPTIONS.has(root)) return `${root}iz${ise[2]}`;
    return word;
  }
  const yse = YSE.exec(word);
  if (yse !== null) return `${yse[1]}z${yse[2]}`;
  const our = OUR.exec(word);
  if (our !== null) return `${our[1]}or${word.slice(our[0].length)}`;
  const ll = DOUBLE_L.exec(word);
  if (ll !== null) return `${ll[1]}${ll[2]}`;
  const tre = TRE.exec(word);
  if (tre !== null) return `${tre[1]}er${TRE_SUFFIX[tre[2] ?? ''] ?? ''}`;
  const ogue = OGUE.exec(word);
  if (ogue !== null) return `${ogue[1]}og${ogue[2] ?? ''}`;
  return ENCE[word] ?? word;
}
