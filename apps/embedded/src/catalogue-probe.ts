/** One model of each kind the banner's curl lines use, or null where the catalogue serves none. */
export interface ServedModels {
  chat: string | null;
  embedding: string | null;
  image: string | null;
}

/** The first chat, embedding and image models the running gateway lists, so the banner's curl lines name ones it serves. */
export async function servedModels(apiUrl: string): Promise<ServedModels> {
  const response = await fetch(`${apiUrl}/v1/models`);
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}`);
  const { data } = (await response.json()) as { data: { id: string; type?: string }[] };
  const first = (type: string) => data.find((model) => model.type === type)?.id ?? null;
  return { chat: first('chat'), embedding: first('embedding'), image: first('image') };
}
