import { answer, cutAtStop, type MockConversation, stopSequences } from './mock-answer';

const conversation = (lastUserText: string, fields: Partial<MockConversation> = {}): MockConversation => ({
  texts: [lastUserText],
  lastUserText,
  maxTokens: null,
  forcedTool: null,
  stop: [],
  ...fields,
});

describe('cutAtStop', () => {
  it.each<[string, string, string[], { text: string; sequence: string | null }]>([
    ['no stop sequences', 'one two', [], { text: 'one two', sequence: null }],
    ['a sequence that does not occur', 'one two', ['three'], { text: 'one two', sequence: null }],
    ['before the sequence', 'one two three', ['three'], { text: 'one two ', sequence: 'three' }],
    ['inside a word', 'one two', ['w'], { text: 'one t', sequence: 'w' }],
    [
      'at the earliest of several, whatever their order',
      'a b c d',
      ['d', 'b'],
      { text: 'a ', sequence: 'b' },
    ],
    ['at the very start', 'one two', ['one'], { text: '', sequence: 'one' }],
    ['never at an empty sequence', 'one', [''], { text: 'one', sequence: null }],
  ])('cuts %s', (_label, text, stop, expected) => {
    expect(cutAtStop(text, stop)).toEqual(expected);
  });
});

describe('stopSequences', () => {
  it.each<[unknown, string[]]>([
    [undefined, []],
    ['END', ['END']],
    [
      ['a', 'b'],
      ['a', 'b'],
    ],
    [['a', 7, null], ['a']],
    [{ stop: 'a' }, []],
  ])('reads %p as %p', (value, expected) => {
    expect(stopSequences(value)).toEqual(expected);
  });
});

describe('answer with stop sequences', () => {
  it.each<
    [string, Partial<MockConversation>, { words: string[]; finish: string; stopSequence: string | null }]
  >([
    [
      'a stop sequence ends the answer with finish stop',
      { stop: ['three'] },
      { words: ['one', 'two'], finish: 'stop', stopSequence: 'three' },
    ],
    [
      'markers are gone before the stop is looked for',
      { stop: ['two three'] },
      { words: ['one'], finish: 'stop', stopSequence: 'two three' },
    ],
    [
      'max_tokens shorter than the stop cut wins with length',
      { stop: ['four'], maxTokens: 2 },
      { words: ['one', 'two'], finish: 'length', stopSequence: null },
    ],
    [
      'a stop cut within max_tokens is a stop',
      { stop: ['three'], maxTokens: 2 },
      { words: ['one', 'two'], finish: 'stop', stopSequence: 'three' },
    ],
    [
      'a tool call is not cut',
      { stop: ['two'], forcedTool: 'lookup' },
      { words: ['one', 'two', 'three', 'four'], finish: 'tool_calls', stopSequence: null },
    ],
  ])('%s', (_label, fields, expected) => {
    const reply = answer(conversation('one [[delay:0]] two  three four', fields));
    expect({ words: reply.words, finish: reply.finish, stopSequence: reply.stopSequence }).toEqual(expected);
    expect(reply.completionTokens).toBe(expected.words.length);
  });
});
