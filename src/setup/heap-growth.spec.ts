import { limitHeapGrowth } from './heap-growth';

describe('limitHeapGrowth', () => {
  const original = process.env.NODE_OPTIONS;
  const setFlags = jest.fn();
  afterEach(() => {
    process.env.NODE_OPTIONS = original;
    setFlags.mockClear();
  });

  it('fixes the old generation growing factor at 2', () => {
    delete process.env.NODE_OPTIONS;
    limitHeapGrowth(setFlags);
    expect(setFlags).toHaveBeenCalledWith('--heap-growing-percent=100');
  });

  it("leaves an operator's own setting alone", () => {
    process.env.NODE_OPTIONS = '--max-old-space-size=512 --heap-growing-percent=300';
    limitHeapGrowth(setFlags);
    expect(setFlags).not.toHaveBeenCalled();
  });
});
