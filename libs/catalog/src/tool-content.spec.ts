import { ToolContent } from './tool-content';

describe('ToolContent', () => {
  it('holds blocks and optional structured data', () => {
    const c = new ToolContent([{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }], { ok: true });
    expect(c.blocks).toHaveLength(1);
    expect(c.structured).toEqual({ ok: true });
    expect(new ToolContent([]).structured).toBeUndefined();
  });
});
