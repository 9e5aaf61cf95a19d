import { startsWithHeapSettings } from './heap-settings';

// The gateway is loaded only in the process that runs it, never in the launcher (heap-settings.ts).
if (startsWithHeapSettings()) void import('./embedded-app').then(({ runEmbedded }) => runEmbedded());
