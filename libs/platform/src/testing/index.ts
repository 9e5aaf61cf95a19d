// Helpers for specs only, apart from the main entry point so that no app's bundle carries
// @nestjs/testing; lint allows this entry point in test files alone.
export * from './test-transport';
