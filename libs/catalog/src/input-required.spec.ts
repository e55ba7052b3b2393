import { InputRequired } from './input-required';

describe('InputRequired', () => {
  it('renders the 2026-07-28 InputRequiredResult, with requestState only when given', () => {
    const requests = { roots: { method: 'roots/list' as const, params: {} } };
    expect(new InputRequired(requests).toResult()).toEqual({ resultType: 'input_required', inputRequests: requests });
    expect(new InputRequired(requests, 'opaque').toResult()).toEqual({
      resultType: 'input_required',
      inputRequests: requests,
      requestState: 'opaque',
    });
  });
});
