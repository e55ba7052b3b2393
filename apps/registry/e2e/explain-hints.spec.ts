// The conformance runner's pointer from a "tool missing from a list" failure to the Explain API.
import { explainHints } from '../../../scripts/explain-hints.cjs';

describe('explainHints (scripts/conformance.mjs)', () => {
  it('links each tool a failing check reports missing to GET /v1/explain and the console panel', () => {
    const hints = explainHints(
      [
        { status: 'FAILURE', errorMessage: 'Tool test_simple_text not found in tools/list' },
        { status: 'WARNING', errorMessage: 'missing tool "test_image"' },
        { status: 'SUCCESS', errorMessage: 'Tool passing_tool not found' },
        { status: 'FAILURE', errorMessage: 'wrong content type' },
      ],
      'tools-call-simple-text',
    );
    expect(hints).toEqual([
      'tools-call-simple-text: tool test_simple_text is missing from a list; why: GET /v1/explain?tool=test_simple_text&surface=generic (console: /console/tools?explain=test_simple_text)',
      'tools-call-simple-text: tool test_image is missing from a list; why: GET /v1/explain?tool=test_image&surface=generic (console: /console/tools?explain=test_image)',
    ]);
    expect(explainHints(undefined, 'x')).toEqual([]);
  });
});
