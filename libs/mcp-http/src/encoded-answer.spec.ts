import { SplicedResult, answerBuffer, answerLength } from './encoded-answer';

describe('SplicedResult', () => {
  const body = Buffer.from('{"tools":[{"name":"a"}]');
  const tail = Buffer.from(',"ttlMs":0}');

  it('is the JSON-RPC result around the page body and its tail, whether joined or written in parts', () => {
    const answer = new SplicedResult('req-1', body, tail);
    const written: Buffer[] = [];
    answer.writeTo({ write: (chunk: string | Buffer) => written.push(Buffer.from(chunk)) });
    const joined = Buffer.concat(written).toString('utf8');
    expect(JSON.parse(joined)).toEqual({ jsonrpc: '2.0', id: 'req-1', result: { tools: [{ name: 'a' }], ttlMs: 0 } });
    expect(answerBuffer(answer).toString('utf8')).toBe(joined);
    expect(answerLength(answer)).toBe(Buffer.byteLength(joined));
    // The shared parts go to the socket as they are, never copied.
    expect(written[1]).toEqual(body);
    expect(written).toHaveLength(4);
  });

  it('without a tail the body is the whole result', () => {
    const answer = new SplicedResult(7, Buffer.from('{"tools":[]}'));
    expect(JSON.parse(answer.toString())).toEqual({ jsonrpc: '2.0', id: 7, result: { tools: [] } });
    expect(answer.length).toBe(answer.toBuffer().length);
  });
});
