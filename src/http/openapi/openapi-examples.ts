import RECORDED from '../../../schema/openapi-examples.json' with { type: 'json' };

type Json = Record<string, unknown>;

/** One recorded answer: the request that got it (`GET /v1/units/ft`) and its JSON body (a CSV or NDJSON one as text). */
interface RecordedExample {
  summary: string;
  value: unknown;
}

/** Recorded answers by operation (`GET /v1/units/{unit}`), then status, then example name. */
export type RecordedExamples = Record<string, Record<string, Record<string, RecordedExample>>>;

/**
 * The response examples of the document: real answers of the server (the real ECB history, a
 * fixed clock), recorded by test/schema/openapi-examples-real-data.test.ts into
 * schema/openapi-examples.json and never written by hand, so documentation (Redoc, Scalar) shows
 * what a client gets rather than placeholders. Each lands on its operation's answer of that
 * status (JSON, else its one media type); one naming an operation or status the document lacks stops the build, as a stale
 * recording should.
 */
export function withResponseExamples(
  paths: Record<string, Record<string, unknown>>,
  recorded: RecordedExamples = RECORDED as RecordedExamples,
): void {
  for (const [operation, statuses] of Object.entries(recorded)) {
    const [method, path] = operation.split(' ') as [string, string];
    const responses = (paths[path]?.[method.toLowerCase()] as Json | undefined)?.['responses'] as Record<string, Json> | undefined;
    if (!responses)
      throw new TypeError(`schema/openapi-examples.json records ${operation}, which the document lacks: record the examples again.`);
    for (const [status, examples] of Object.entries(statuses)) {
      // A text answer (CSV, NDJSON) lands on its operation's first media type, the one it was asked in.
      const content = responses[status]?.['content'] as Record<string, Json> | undefined;
      const json = content?.['application/json'] ?? (content && Object.values(content)[0]);
      if (!json)
        throw new TypeError(
          `schema/openapi-examples.json records a ${status} answer of ${operation}, which the document lacks: record the examples again.`,
        );
      json['examples'] = examples;
    }
  }
}

/**
 * The answer schemas (`isAnswer`: GraphQL output objects) without the scalars' sample values
 * (`12.5` for every Decimal, a rate included): an answer's examples are the recorded ones. Inputs
 * keep theirs, which show what to send.
 */
export function withoutScalarSamples(schemas: Record<string, Json>, isAnswer: (name: string) => boolean): Record<string, Json> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'example' && key !== 'examples')
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, isAnswer(name) ? (strip(schema) as Json) : schema]));
}
