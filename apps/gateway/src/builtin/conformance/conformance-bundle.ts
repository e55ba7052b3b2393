import type { LocalBundle } from '@switchboard/catalog';
import { JsonSchema202012Tool } from './json-schema-2020-12-tool';
import { StaticBinaryResource } from './static-binary-resource';
import { StaticTextResource } from './static-text-resource';
import { TemplateDataResource } from './template-data-resource';
import { TestAudioContentTool } from './test-audio-content-tool';
import { TestElicitationSep1034DefaultsTool } from './test-elicitation-sep1034-defaults-tool';
import { TestElicitationSep1330EnumsTool } from './test-elicitation-sep1330-enums-tool';
import { TestElicitationTool } from './test-elicitation-tool';
import { TestEmbeddedResourceTool } from './test-embedded-resource-tool';
import { TestErrorHandlingTool } from './test-error-handling-tool';
import { TestImageContentTool } from './test-image-content-tool';
import { TestMultipleContentTypesTool } from './test-multiple-content-types-tool';
import { TestPromptWithArguments } from './test-prompt-with-arguments';
import { TestPromptWithEmbeddedResource } from './test-prompt-with-embedded-resource';
import { TestPromptWithImage } from './test-prompt-with-image';
import { TestSamplingTool } from './test-sampling-tool';
import { TestSimplePrompt } from './test-simple-prompt';
import { TestSimpleTextTool } from './test-simple-text-tool';
import { TestToolWithLoggingTool } from './test-tool-with-logging-tool';
import { TestToolWithProgressTool } from './test-tool-with-progress-tool';
import { WatchedResource } from './watched-resource';

/** The fixture set the official conformance suite expects (MCP-NOTES §1.5; conformance/README.md). */
export const conformanceBundle: LocalBundle = {
  id: 'conformance',
  server: { name: 'switchboard-conformance', version: '0.1.0', title: 'Switchboard conformance tenant' },
  tools: [
    TestSimpleTextTool,
    TestImageContentTool,
    TestAudioContentTool,
    TestEmbeddedResourceTool,
    TestMultipleContentTypesTool,
    TestToolWithLoggingTool,
    TestToolWithProgressTool,
    TestErrorHandlingTool,
    TestSamplingTool,
    TestElicitationTool,
    TestElicitationSep1034DefaultsTool,
    TestElicitationSep1330EnumsTool,
    JsonSchema202012Tool,
  ],
  resources: [StaticTextResource, StaticBinaryResource, WatchedResource],
  resourceTemplates: [TemplateDataResource],
  prompts: [TestSimplePrompt, TestPromptWithArguments, TestPromptWithEmbeddedResource, TestPromptWithImage],
};
