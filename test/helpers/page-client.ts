import type { TestApp } from './app';

export interface PageAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A cookie-keeping client of the account page, over loopback through the app's front, sending what
 * a browser sends on a form post (the front's Origin, form encoding, Accept: text/html). Options
 * replay it differently: another Origin, another CSRF token, no cookie.
 */
export function pageClient(app: Pick<TestApp, 'origin' | 'fetch'>) {
  let cookie: string | undefined;
  let lastPage = '';

  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const value = pair!.slice(pair!.indexOf('=') + 1);
      cookie = /Max-Age=0/i.test(line) || value === '' ? undefined : value;
    }
  };

  const answer = async (response: Response): Promise<PageAnswer> => {
    remember(response);
    const text = await response.text();
    if (response.headers.get('content-type')?.startsWith('text/html')) lastPage = text;
    return { status: response.status, headers: response.headers, text };
  };

  return {
    get cookie() {
      return cookie;
    },
    set cookie(value: string | undefined) {
      cookie = value;
    },
    /** The CSRF token of the last page shown. */
    csrf(): string {
      const match = /name="csrf" value="([^"]+)"/.exec(lastPage);
      if (!match) throw new Error('the last page had no CSRF token');
      return match[1]!;
    },
    /** The new key shown on the last page, if any. */
    shownKey(): string | undefined {
      return /<code id="new-key">([^<]+)<\/code>/.exec(lastPage)?.[1];
    },
    async get(path: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
      return answer(
        await app.fetch(path, { headers: { accept: 'text/html', ...(cookie ? { cookie: `msr_session=${cookie}` } : {}), ...headers } }),
      );
    },
    async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
      // A redirect comes back as it is (303 with Location): the client follows none.
      const response = await app.fetch(path, {
        method: 'POST',
        headers: {
          accept: 'text/html',
          origin: app.origin,
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie: `msr_session=${cookie}` } : {}),
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      });
      return answer(response);
    },
  };
}
