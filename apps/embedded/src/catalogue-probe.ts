/** The first chat model the running gateway lists, so the banner's curl lines name one it serves. */
export async function servedChatModel(apiUrl: string): Promise<string | null> {
  const response = await fetch(`${apiUrl}/v1/models`);
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}`);
  const { data } = (await response.json()) as { data: { id: string; type?: string }[] };
  return data.find((model) => model.type === 'chat')?.id ?? null;
}
