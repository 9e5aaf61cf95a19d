import type { Response } from 'express';
import { noteAnswerCost, takeAnswerCost } from './answer-cost';

const response = () => ({}) as Response;

describe('the cost an answer records for the access log', () => {
  it.each<[string, unknown, number | null]>([
    ['a chat or embeddings answer', { object: 'chat.completion', usage: { cost_rub: 0.0021 } }, 0.0021],
    [
      'a JSON transcription reply',
      { contentType: 'application/json', result: { usage: { cost_rub: 1.5 } } },
      1.5,
    ],
    ['a rendered transcription', { contentType: 'text/plain', body: 'hello' }, null],
    [
      'a Responses completed event',
      { event: 'response.completed', data: { response: { usage: { cost_rub: 2 } } } },
      2,
    ],
    ['a Messages message_delta event', { event: 'message_delta', data: { usage: { cost_rub: 3 } } }, 3],
    ['a chunk without usage', { choices: [{ delta: { content: 'hi' } }] }, null],
    ['a pending media job', { id: 'gen-1', status: 'pending' }, null],
    ['a free answer', { usage: { cost_rub: 0 } }, 0],
    ['a cost that is not a number', { usage: { cost_rub: '5' } }, null],
  ])('reads %s', (_name, answer, cost) => {
    const written = response();
    noteAnswerCost(written, answer);
    expect(takeAnswerCost(written)).toBe(cost);
  });

  it("keeps a stream's last cost, through chunks without one, and forgets it once taken", () => {
    const written = response();
    noteAnswerCost(written, { usage: { cost_rub: 1 } });
    noteAnswerCost(written, { usage: { cost_rub: 4.25 } });
    noteAnswerCost(written, { choices: [] });
    expect(takeAnswerCost(written)).toBe(4.25);
    expect(takeAnswerCost(written)).toBeNull();
    expect(takeAnswerCost(response())).toBeNull();
  });
});
