// Validates Kubernetes objects against the API's own schemas, offline: the OpenAPI schemas of
// Kubernetes (`kubernetes-models`) and of the Gateway API CRDs (`@kubernetes-models/gateway-api`),
// compiled to validators by those packages. Reads a JSON array of objects on stdin and writes a JSON
// array of problems, one string each. Native ESM (the packages are ESM-only), run by schemas.ts in a
// child process so that Jest need not transpile them.
//
// The Kubernetes schemas allow any extra field; the API server (and `kubectl apply`, whose field
// validation is strict) refuses them. The compiled validators read every field their schema knows,
// so each object is validated through a proxy that records what was read: a field no validator
// read, in an object whose keys were not enumerated (maps such as labels are), is unknown.

const GROUPS = {
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api/gateway.networking.k8s.io',
};

/** The model module of an apiVersion and kind, or undefined for a name that cannot be one. */
function modulePath(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const match = /^(?:([a-z0-9.-]+)\/)?(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)$/.exec(apiVersion);
  if (!match) return undefined;
  const [, group, version] = match;
  if (!group) return `kubernetes-models/${version}/${kind}`;
  return `${GROUPS[group] ?? `kubernetes-models/${group}`}/${version}/${kind}`;
}

/** The model class of a top-level kind: a type with no apiVersion and kind of its own (a Container) is none. */
async function modelOf(apiVersion, kind) {
  const path = modulePath(apiVersion, kind);
  if (!path) return undefined;
  let module;
  try {
    module = await import(path);
  } catch (error) {
    if (['ERR_MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED'].includes(error?.code)) return undefined;
    throw error;
  }
  const model = module[kind];
  return model?.apiVersion === apiVersion && model?.kind === kind ? model : undefined;
}

/** Wraps an object so that every field a validator reads, and every object whose keys it lists, is recorded. */
function recording(root) {
  const records = new Map();
  const proxies = new Map();
  const wrap = (value, path) => {
    if (value === null || typeof value !== 'object') return value;
    if (proxies.has(value)) return proxies.get(value);
    const record = { path, read: new Set(), listed: Array.isArray(value) };
    records.set(value, record);
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const found = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || !Object.hasOwn(target, key)) return found;
        record.read.add(key);
        return wrap(found, `${path}/${key}`);
      },
      has(target, key) {
        if (typeof key === 'string') record.read.add(key);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        record.listed = true;
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  const unknownFields = () =>
    [...records.entries()].flatMap(([object, { path, read, listed }]) =>
      listed
        ? []
        : Object.keys(object)
            .filter((key) => !read.has(key))
            .map((key) => `${path}/${key}`),
    );
  return { proxy: wrap(root, ''), unknownFields };
}

/** The problems of one object, each naming the object and the field. */
async function problemsOf(object, index) {
  const name = `${object?.kind ?? '?'} ${object?.metadata?.name ?? `#${index}`}`;
  const model = await modelOf(object?.apiVersion, object?.kind);
  if (!model) return [`${name}: no schema for apiVersion ${object?.apiVersion} kind ${object?.kind}`];
  const { proxy, unknownFields } = recording(object);
  const problems = [];
  try {
    // The model's validate() checks `this` with the compiled validator of its schema.
    model.prototype.validate.call(proxy);
  } catch (error) {
    if (!Array.isArray(error?.errors)) throw error;
    for (const e of error.errors) problems.push(`${name}: ${e.instancePath || '/'} ${e.message}`);
  }
  for (const path of unknownFields()) problems.push(`${name}: ${path} is not a field of the schema`);
  return problems;
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const objects = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const problems = [];
for (const [index, object] of objects.entries()) problems.push(...(await problemsOf(object, index)));
process.stdout.write(JSON.stringify([...new Set(problems)]));
