/** The API's version: `info.version` of the OpenAPI document and `version` in /v1/health. */
export const API_VERSION = '0.1.0';
export const API_TITLE = 'Measurement API';
