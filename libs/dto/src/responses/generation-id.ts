/** A generation id as the gateway chooses it: `gen-<uuid>`. */
export const GENERATION_ID = /^gen-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
