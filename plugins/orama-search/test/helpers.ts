import type { IndexableChunk, IndexKey } from '@pro-context/kernel';

/** A chunk with a URL derived from its id. */
export function chunk(id: string, title: string, headings: string[], body: string): IndexableChunk {
  return { id, title, headings, body, url: `https://docs.test/${id}` };
}

/** A key for library `libraryId` at `version`. */
export function keyOf(libraryId: string, version = '1.0.0'): IndexKey {
  return { libraryId, version };
}

/** A small pydantic-like corpus: each chunk is about one thing. */
export const docs: IndexableChunk[] = [
  chunk(
    'field-validators',
    'Validators',
    ['Validators', 'Field validators'],
    'Use the `@field_validator` decorator to check one field. The validator runs after parsing.',
  ),
  chunk(
    'model-validators',
    'Validators',
    ['Validators', 'Model validators'],
    'A `@model_validator` checks the whole model, before or after the fields are validated.',
  ),
  chunk(
    'json-parsing',
    'JSON',
    ['JSON', 'Parsing JSON'],
    'Call `Model.model_validate_json(data)` to parse and validate a JSON string in one step.',
  ),
  chunk(
    'base-model',
    'Models',
    ['Models', 'Basic model usage'],
    'Models are classes that inherit from `BaseModel`. Fields are declared with type annotations.',
  ),
  chunk(
    'routers',
    'Bigger applications',
    ['Bigger applications', 'APIRouter'],
    'Create an `APIRouter`, declare path operations with `@router.get`, then `app.include_router(router)`.',
  ),
  chunk(
    'dependencies',
    'Dependencies',
    ['Dependencies', 'Declaring dependencies'],
    'Declare a dependency with `Depends()` in the parameters of a path operation such as `@app.get("/items")`.',
  ),
  chunk(
    'response-model',
    'Response model',
    ['Response model', 'The response_model parameter'],
    'Set `response_model` on the decorator to filter and document the returned data.',
  ),
  chunk(
    'async-client',
    'Async support',
    ['Async support', 'Making async requests'],
    'Use `httpx.AsyncClient` in an `async with` block and `await client.get(url)`.',
  ),
  chunk(
    'mentions-validators',
    'Changelog',
    ['Changelog', 'Version 2.1'],
    'Many small fixes. Error messages of validators are clearer now, and startup is faster.',
  ),
];
