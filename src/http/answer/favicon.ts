/**
 * The service's icon (a small ruler), served same-origin by GraphiQL and the account page, so that
 * a browser finds it declared instead of asking for /favicon.ico and logging a 404.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="2" y="10" width="28" height="12" rx="2" fill="#e10098"/><path d="M7 10v6M12 10v4M17 10v6M22 10v4M27 10v6" stroke="#fff" stroke-width="2"/></svg>`;
