import { Tool, type ToolContent, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS, WAV_SILENCE_BASE64 } from './fixture-media';

/** `tools-call-audio`: one audio block (a few samples of WAV silence). */
export class TestAudioContentTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_audio_content',
    description: 'Returns an audio content block (a short WAV).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): ToolContent {
    return Tool.content([{ type: 'audio', data: WAV_SILENCE_BASE64, mimeType: 'audio/wav' }]);
  }
}
