import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, keymap, MatchDecorator, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { useEffect, useRef } from 'react';

/** The page's CSP nonce (index.html), which CodeMirror's stylesheet needs to be applied. */
const cspNonce = (document.querySelector('meta[name="csp-nonce"]') as HTMLMetaElement | null)?.nonce ?? '';
export const withNonce: Extension = EditorView.cspNonce.of(cspNonce);

/** Handlebars expressions ({{name}}, {{#if x}}, ...) marked so the editor can colour them. */
const handlebars = new MatchDecorator({ regexp: /\{\{[^{}]*\}\}/g, decoration: Decoration.mark({ class: 'cm-handlebars' }) });
export const handlebarsHighlight: Extension = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = handlebars.createDeco(view);
    }
    update(update: ViewUpdate) {
      this.decorations = handlebars.updateDeco(update, this.decorations);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/** A CodeMirror editor for one text value; `label` names it for screen readers. */
export function CodeEditor({
  value,
  onChange,
  label,
  template,
}: {
  value: string;
  onChange: (value: string) => void;
  label: string;
  template?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  // The label can change (a message moved or given another role): it is reconfigured, not the editor remade.
  const naming = useRef(new Compartment());
  const named = (text: string) => naming.current.of(EditorView.contentAttributes.of({ 'aria-label': text }));

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          withNonce,
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          named(label),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
          ...(template ? [handlebarsHighlight] : []),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
    // The editor owns its text once made; outside changes arrive through the effect below.
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: naming.current.reconfigure(EditorView.contentAttributes.of({ 'aria-label': label })) });
  }, [label]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div className="editor" ref={host} />;
}
