import convert from 'convert-units';
import express, { type Express } from 'express';

/**
 * The peer row: `GET /v1/convert` as a typical small Express 5 service writes it, with
 * convert-units doing the arithmetic in binary floating point. It has none of the API's
 * guarantees: no key, no quota, no rate limit, no exact decimals (12.5 in → 31.749998984000026 cm,
 * because convert-units goes through 1 ft = 1/3.28084 m). Express's defaults stay on
 * (`X-Powered-By`, a weak ETag per response), as such a service would ship them.
 */
export function expressPeer(): Express {
  const app = express();
  app.get('/v1/convert', (req, res) => {
    const { value, from, to } = req.query;
    const number = Number(value);
    if (
      typeof value !== 'string' ||
      typeof from !== 'string' ||
      typeof to !== 'string' ||
      value.trim() === '' ||
      !Number.isFinite(number)
    ) {
      res.status(400).json({ error: { code: 'INVALID_REQUEST', message: 'value, from and to are required; value must be a number.' } });
      return;
    }
    try {
      const result = convert(number)
        .from(from as convert.Unit)
        .to(to as convert.Unit);
      const category = convert().describe(from as convert.Unit).measure;
      res.json({ data: { input: { value: number, unit: from }, result: { value: result, unit: to }, category } });
    } catch (error) {
      res.status(400).json({ error: { code: 'INVALID_REQUEST', message: (error as Error).message } });
    }
  });
  return app;
}
