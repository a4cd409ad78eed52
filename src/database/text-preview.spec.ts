import { PREVIEW_CHARS, previewText, toolsText } from './text-preview';

describe('text previews', () => {
  it('folds whitespace, and is null for nothing to show', () => {
    expect(previewText('  Hello,\n\n  there\tfriend  ')).toBe('Hello, there friend');
    expect([previewText(''), previewText(' \n '), previewText(null), previewText(undefined)]).toEqual([null, null, null, null]);
  });

  it(`cuts at ${PREVIEW_CHARS} characters with …, never inside a character of two code units`, () => {
    const exact = 'a'.repeat(PREVIEW_CHARS);
    expect(previewText(exact)).toBe(exact);
    const cut = previewText(`${'word '.repeat(40)}end`)!;
    expect(cut).toBe(`${'word '.repeat(31)}word…`);
    expect([...cut]).toHaveLength(PREVIEW_CHARS);
    // A cut after a space leaves no space before the …
    expect(previewText(`${'a'.repeat(PREVIEW_CHARS - 2)} bcd`)).toBe(`${'a'.repeat(PREVIEW_CHARS - 2)}…`);
    const emoji = previewText('😀'.repeat(PREVIEW_CHARS + 5))!;
    expect([...emoji]).toHaveLength(PREVIEW_CHARS);
    expect(emoji).toBe(`${'😀'.repeat(PREVIEW_CHARS - 1)}…`);
  });

  it('says which tools a reply calls', () => {
    expect(toolsText(['get_weather', 'lookup_order'])).toBe('calls get_weather, lookup_order');
    expect([toolsText([]), toolsText(null), toolsText([3, ''])]).toEqual([null, null, null]);
  });
});
