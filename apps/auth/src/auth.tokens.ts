export const AUTH_ENV = Symbol('AUTH_ENV');
