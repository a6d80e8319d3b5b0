// Authentication is a use case (services/auth.ts); the HTTP edge only hands it the header.
export { authenticate, INVALID_KEY_CHALLENGE, MISSING_KEY_CHALLENGE, type Principal } from '../services/auth';
