import {
  AuthContracts,
  AuthEvents,
  BillingContracts,
  BillingEvents,
  DURABLE_EVENT_STREAM,
  type BroadcastContract,
  type DurableEventContract,
  EmbeddingsContracts,
  FormatsContracts,
  GeneratedFileContracts,
  InferenceContracts,
  MediaContracts,
  OAuthContracts,
  type RequestContract,
  StorageContracts,
  TranscriptionContracts,
} from '@gw/contracts';
// The permissions name the platform's own subjects and are tried with its own NATS clients.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { livenessSubject, presenceSubject, RATE_LIMIT_STREAM, RATE_LIMIT_SUBJECT_PREFIX } from '@gw/platform';

/**
 * Who may say what on the bus: one NATS user per deployable app, written in terms of the contracts
 * so that a renamed subject moves its permission with it. deploy/nats/auth.conf is generated from
 * this (tools/generate-nats-config.ts), and compose and Kubernetes run NATS with that file.
 */
export interface NatsUserSpec {
  /** Requests and broadcasts this app's handlers take. */
  serves: (RequestContract | BroadcastContract<object>)[];
  /** Requests this app sends and broadcasts it emits. */
  calls: (RequestContract | BroadcastContract<object>)[];
  /** Durable events this app publishes to JetStream. */
  publishesEvents: DurableEventContract<object>[];
  /** Durable events this app consumes from JetStream (a durable consumer each). */
  consumesEvents: DurableEventContract<object>[];
  /** The gateway keeps its rate-limit counters in a JetStream stream. */
  rateLimits?: boolean;
  /** Probes whether the process that sent a request is still there (CallerPresence). */
  probesCallers?: boolean;
}

type Contract = RequestContract | BroadcastContract<object>;
const all = (group: Record<string, Contract>): Contract[] => Object.values(group);

/** The calls a paid generation makes (libs/paid-generation): holds, their leases and generated files. */
const PAID_GENERATION_CALLS: Contract[] = [
  BillingContracts.reserve,
  BillingContracts.extendReservation,
  BillingContracts.renewLeases,
  ...all(GeneratedFileContracts),
];
const GENERATION_EVENTS = [BillingEvents.generationFinished, BillingEvents.generationUndelivered];

export const NATS_USERS: Record<string, NatsUserSpec> = {
  // The only user that may send credit and admin requests: they come from the admin API it guards.
  'api-gateway': {
    serves: [AuthEvents.apiKeyRevoked],
    calls: [
      ...all(AuthContracts),
      ...all(OAuthContracts),
      BillingContracts.addCredits,
      BillingContracts.getBalance,
      BillingContracts.listHistory,
      BillingContracts.getHistory,
      ...all(InferenceContracts),
      ...all(FormatsContracts),
      ...all(EmbeddingsContracts),
      ...all(TranscriptionContracts),
      ...all(MediaContracts),
      ...all(StorageContracts),
    ],
    publishesEvents: [BillingEvents.generationUndelivered],
    consumesEvents: [],
    rateLimits: true,
  },
  auth: {
    serves: [...all(AuthContracts), ...all(OAuthContracts)],
    calls: [BillingContracts.setKeyLimits, AuthEvents.apiKeyRevoked],
    publishesEvents: [],
    consumesEvents: [],
  },
  billing: {
    serves: all(BillingContracts),
    calls: [],
    publishesEvents: [],
    consumesEvents: GENERATION_EVENTS,
  },
  inference: {
    serves: [
      ...all(InferenceContracts),
      ...all(FormatsContracts),
      ...all(EmbeddingsContracts),
      ...all(TranscriptionContracts),
    ],
    calls: PAID_GENERATION_CALLS,
    publishesEvents: GENERATION_EVENTS,
    consumesEvents: [],
    probesCallers: true,
  },
  media: {
    serves: all(MediaContracts),
    calls: PAID_GENERATION_CALLS,
    publishesEvents: GENERATION_EVENTS,
    consumesEvents: [],
  },
  storage: {
    serves: [...all(StorageContracts), ...all(GeneratedFileContracts)],
    calls: [],
    publishesEvents: [],
    consumesEvents: [],
  },
};

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * Request replies and JetStream answers arrive on the requester's inbox; a responder publishes its
 * replies (stream pieces and heartbeats included) to the inbox the request names.
 */
const INBOXES = '_INBOX.>';

/** The JetStream API a user of a stream needs: look it up and create it (every user ensures it exists). */
const streamUse = (stream: string): string[] => [
  '$JS.API.INFO',
  `$JS.API.STREAM.INFO.${stream}`,
  `$JS.API.STREAM.CREATE.${stream}`,
];
/** A durable pull consumer: create it, read it, pull messages and acknowledge them. */
const consumerUse = (stream: string): string[] => [
  `$JS.API.CONSUMER.CREATE.${stream}.>`,
  `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
  `$JS.API.CONSUMER.INFO.${stream}.>`,
  `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
  `$JS.ACK.${stream}.>`,
];
/** Reading the last message of a subject, as the rate-limit counters do. */
const lastMessageReads = (stream: string): string[] => [
  `$JS.API.STREAM.MSG.GET.${stream}`,
  `$JS.API.DIRECT.GET.${stream}`,
  `$JS.API.DIRECT.GET.${stream}.>`,
];

/** The subjects one user may publish to and subscribe to. */
export function natsPermissions(spec: NatsUserSpec): NatsPermissions {
  const publish = new Set<string>([INBOXES]);
  // Every process answers probes of its own presence (CallerPresence, one random id per process).
  const subscribe = new Set<string>([INBOXES, presenceSubject('*')]);
  for (const contract of spec.serves) {
    subscribe.add(contract.subject);
    // Callers probe a request subject's liveness subject while they wait (ResponderWatch).
    if (contract.kind !== 'broadcast') subscribe.add(livenessSubject(contract.subject));
  }
  for (const contract of spec.calls) {
    publish.add(contract.subject);
    if (contract.kind !== 'broadcast') publish.add(livenessSubject(contract.subject));
  }
  if (spec.probesCallers) publish.add(presenceSubject('*'));
  const events = [...spec.publishesEvents, ...spec.consumesEvents];
  if (events.length > 0) streamUse(DURABLE_EVENT_STREAM).forEach((s) => publish.add(s));
  for (const event of spec.publishesEvents) publish.add(event.subject);
  if (spec.consumesEvents.length > 0) consumerUse(DURABLE_EVENT_STREAM).forEach((s) => publish.add(s));
  if (spec.rateLimits) {
    [...streamUse(RATE_LIMIT_STREAM), ...lastMessageReads(RATE_LIMIT_STREAM)].forEach((s) => publish.add(s));
    publish.add(`${RATE_LIMIT_SUBJECT_PREFIX}>`);
  }
  return { publish: [...publish].sort(), subscribe: [...subscribe].sort() };
}

/** A credit or admin subject: billing trusts its payload, so only the gateway (the admin API's guard) may send it. */
export const isCreditOrAdminSubject = (subject: string): boolean =>
  subject === BillingContracts.addCredits.subject || /^[a-z]+\.v\d+\.admin\./.test(subject);

/**
 * Every credit and admin request a module of contracts exports (`@gw/contracts`, every group it has),
 * so a new admin contract is covered wherever this list is used without anyone adding it.
 */
export function creditAndAdminContracts(module: object): RequestContract[] {
  const found = new Map<string, RequestContract>();
  for (const group of Object.values(module as Record<string, unknown>)) {
    if (!group || typeof group !== 'object') continue;
    for (const contract of Object.values(group as Record<string, unknown>)) {
      const candidate = contract as Partial<RequestContract> | null;
      if (
        (candidate?.kind === 'rpc' || candidate?.kind === 'stream') &&
        typeof candidate.subject === 'string' &&
        isCreditOrAdminSubject(candidate.subject)
      )
        found.set(candidate.subject, candidate as RequestContract);
    }
  }
  return [...found.values()].sort((a, b) => (a.subject < b.subject ? -1 : 1));
}

/** The environment variable that holds a user's password, in the apps' and in NATS's environment. */
export const passwordVariable = (user: string): string =>
  `NATS_PASSWORD_${user.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

const list = (subjects: string[]): string =>
  ['[', ...subjects.map((s) => `            ${JSON.stringify(s)}`), '          ]'].join('\n');

/** The `authorization` block of nats-server's config: every user, its password variable and permissions. */
export function renderNatsAuthConfig(users: Record<string, NatsUserSpec> = NATS_USERS): string {
  const blocks = Object.entries(users).map(([user, spec]) => {
    const { publish, subscribe } = natsPermissions(spec);
    return [
      '    {',
      `      user: ${JSON.stringify(user)}`,
      `      password: $${passwordVariable(user)}`,
      '      permissions: {',
      `        publish: { allow: ${list(publish)} }`,
      `        subscribe: { allow: ${list(subscribe)} }`,
      '      }',
      '    }',
    ].join('\n');
  });
  return [
    '# Generated by tools/generate-nats-config.ts from tools/infra-check/src/nats-users.ts and the',
    '# contracts: do not edit by hand. One user per app; a client without credentials cannot connect.',
    '# Each password comes from the NATS server environment variable named after the user.',
    'authorization {',
    '  users = [',
    blocks.join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
