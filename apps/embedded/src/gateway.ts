import { runEmbedded } from './embedded-app';

// The entry of dist/apps/embedded/gateway.js, which main.js loads in the process that runs the gateway.
runEmbedded();
