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
import { TestInputRequiredResultCapabilitiesTool } from './test-input-required-result-capabilities-tool';
import { TestInputRequiredResultElicitationTool } from './test-input-required-result-elicitation-tool';
import { TestInputRequiredResultListRootsTool } from './test-input-required-result-list-roots-tool';
import { TestInputRequiredResultMultiRoundTool } from './test-input-required-result-multi-round-tool';
import { TestInputRequiredResultMultipleInputsTool } from './test-input-required-result-multiple-inputs-tool';
import { TestInputRequiredResultPrompt } from './test-input-required-result-prompt';
import { TestInputRequiredResultRequestStateTool } from './test-input-required-result-request-state-tool';
import { TestInputRequiredResultSamplingTool } from './test-input-required-result-sampling-tool';
import { TestInputRequiredResultTamperedStateTool } from './test-input-required-result-tampered-state-tool';
import { TestLoggingTool } from './test-logging-tool';
import { TestMissingCapabilityTool } from './test-missing-capability-tool';
import { TestMultipleContentTypesTool } from './test-multiple-content-types-tool';
import { TestPromptWithArguments } from './test-prompt-with-arguments';
import { TestPromptWithEmbeddedResource } from './test-prompt-with-embedded-resource';
import { TestPromptWithImage } from './test-prompt-with-image';
import { TestSamplingTool } from './test-sampling-tool';
import { TestSimplePrompt } from './test-simple-prompt';
import { TestHeaderParamsTool } from './test-header-params-tool';
import { TestSimpleTextTool } from './test-simple-text-tool';
import { TestReconnectionTool } from './test-reconnection-tool';
import { TestStreamingElicitationTool } from './test-streaming-elicitation-tool';
import { TestToolWithLoggingTool } from './test-tool-with-logging-tool';
import { TestToolWithProgressTool } from './test-tool-with-progress-tool';
import { WatchedResource } from './watched-resource';
import { ConfirmDeleteTool } from './confirm-delete-tool';
import { FailingJobTool } from './failing-job-tool';
import { GreetTool } from './greet-tool';
import { MultiInputTool } from './multi-input-tool';
import { ProtocolErrorJobTool } from './protocol-error-job-tool';
import { SlowComputeTool } from './slow-compute-tool';
import { TestToolWithTaskTool } from './test-tool-with-task-tool';

/** The fixture set the official conformance suite expects (MCP-NOTES §1.5; conformance/README.md). */
export const conformanceBundle: LocalBundle = {
  id: 'conformance',
  server: { name: 'switchboard-conformance', version: '0.1.0', title: 'Switchboard conformance tenant' },
  tools: [
    TestSimpleTextTool,
    TestReconnectionTool,
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
    // 2026-07-28 (conformance-next): stateless diagnostics and MRTR.
    TestMissingCapabilityTool,
    TestStreamingElicitationTool,
    TestLoggingTool,
    TestInputRequiredResultElicitationTool,
    TestInputRequiredResultSamplingTool,
    TestInputRequiredResultListRootsTool,
    TestInputRequiredResultRequestStateTool,
    TestInputRequiredResultMultipleInputsTool,
    TestInputRequiredResultMultiRoundTool,
    TestInputRequiredResultTamperedStateTool,
    TestInputRequiredResultCapabilitiesTool,
    // SEP-2243 (pending in 2026-07-28): an argument mirrored into an Mcp-Param-* header.
    TestHeaderParamsTool,
    // Tasks extension (SEP-2663, the alpha suite's `tasks-*`).
    GreetTool,
    SlowComputeTool,
    FailingJobTool,
    ProtocolErrorJobTool,
    ConfirmDeleteTool,
    MultiInputTool,
    TestToolWithTaskTool,
  ],
  resources: [StaticTextResource, StaticBinaryResource, WatchedResource],
  resourceTemplates: [TemplateDataResource],
  prompts: [TestSimplePrompt, TestPromptWithArguments, TestPromptWithEmbeddedResource, TestPromptWithImage, TestInputRequiredResultPrompt],
};
