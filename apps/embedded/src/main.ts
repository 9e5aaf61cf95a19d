import { join } from 'node:path';
import { startsWithHeapSettings } from './heap-settings';

/** Node's own require, which webpack leaves alone: the gateway is a bundle of its own (webpack.config.cjs). */
declare const __non_webpack_require__: NodeJS.Require;

// The gateway is loaded only in the process that runs it, never in the launcher (heap-settings.ts).
if (startsWithHeapSettings()) __non_webpack_require__(join(__dirname, 'gateway.js'));
