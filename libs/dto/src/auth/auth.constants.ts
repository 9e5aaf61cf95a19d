export const NAME_MAX_LENGTH = 200;
export const API_KEY_NAME_MAX_LENGTH = 100;
export const PASSWORD_MIN_LENGTH = 8;
/** scrypt hashes any length, but an unbounded password is a cheap way to burn CPU. */
export const PASSWORD_MAX_LENGTH = 256;
export const EMAIL_MAX_LENGTH = 254;
