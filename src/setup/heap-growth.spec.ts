import * as v8 from 'node:v8';
import { limitHeapGrowth } from './heap-growth';

jest.mock('node:v8', () => ({ setFlagsFromString: jest.fn() }));

describe('limitHeapGrowth', () => {
  const original = process.env.NODE_OPTIONS;
  afterEach(() => {
    process.env.NODE_OPTIONS = original;
    jest.mocked(v8.setFlagsFromString).mockClear();
  });

  it('fixes the old generation growing factor at 2', () => {
    delete process.env.NODE_OPTIONS;
    limitHeapGrowth();
    expect(v8.setFlagsFromString).toHaveBeenCalledWith('--heap-growing-percent=100');
  });

  it("leaves an operator's own setting alone", () => {
    process.env.NODE_OPTIONS = '--max-old-space-size=512 --heap-growing-percent=300';
    limitHeapGrowth();
    expect(v8.setFlagsFromString).not.toHaveBeenCalled();
  });
});
