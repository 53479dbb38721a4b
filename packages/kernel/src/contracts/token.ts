/**
 * A typed injection token with a stable id.
 *
 * Underneath it is `Symbol.for('@pro-context/kernel:<id>')`, so two installed copies of a package that
 * create the same token agree on it. The phantom `__type` member carries the bound value's type.
 */
export type Token<T> = symbol & { readonly __tokenType?: T };

/** Whether a contract takes one provider (a second one is refused) or many (multi-binding). */
export type TokenCardinality = 'single' | 'multiple';

const cardinalities = new Map<symbol, TokenCardinality>();
const ids = new Map<symbol, string>();

/** Token ids look like `'<owner>.<name>'`, e.g. `'kernel.searchBackend'` or `'github.options'`. */
const TOKEN_ID = /^[a-z][a-zA-Z0-9-]*(\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

/**
 * Creates (or finds again) the token with this id.
 *
 * @param id - stable id, `'<owner>.<name>'`
 * @param options.multiple - `true` for plural contracts (many plugins may bind it; resolve them all with
 *   `resolveAll`). Singular tokens refuse a second provider.
 */
export function createToken<T>(id: string, options: { multiple?: boolean } = {}): Token<T> {
  if (!TOKEN_ID.test(id)) {
    throw new TypeError(`Token id '${id}' must look like '<owner>.<name>' (for example 'github.options').`);
  }
  const symbol = Symbol.for(`@pro-context/kernel:${id}`) as Token<T>;
  const cardinality: TokenCardinality = options.multiple ? 'multiple' : 'single';
  const known = cardinalities.get(symbol);
  if (known && known !== cardinality) {
    throw new TypeError(`Token '${id}' was already created as ${known}; it cannot also be ${cardinality}.`);
  }
  cardinalities.set(symbol, cardinality);
  ids.set(symbol, id);
  return symbol;
}

/** The id a token was created with. */
export function tokenId(token: Token<unknown>): string {
  return ids.get(token) ?? Symbol.keyFor(token)?.replace('@pro-context/kernel:', '') ?? String(token.description);
}

/** Whether a token is singular or plural. Tokens not made by {@link createToken} count as singular. */
export function tokenCardinality(token: Token<unknown>): TokenCardinality {
  return cardinalities.get(token) ?? 'single';
}
