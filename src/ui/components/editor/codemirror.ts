/**
 * The CodeMirror 6 SQL editor, loaded on demand (dynamic import from
 * SqlEditor.svelte) so the first page does not carry it. Highlighting and
 * keywords of the engine's dialect (DuckDB is PostgreSQL-like plus its own
 * keywords; SQLite is lang-sql's), completion of the loaded fixture's tables
 * and columns. Styles go through adopted stylesheets, which the page's
 * Content-Security-Policy allows (no inline <style>).
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { PostgreSQL, sql, SQLDialect, SQLite } from '@codemirror/lang-sql';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';

export type SqlSchema = Record<string, string[]>;

const DUCKDB = SQLDialect.define({
  ...PostgreSQL.spec,
  keywords: `${PostgreSQL.spec.keywords ?? ''} qualify pivot unpivot summarize describe exclude replace columns struct list map union_by_name asof positional sample using`,
  builtin: `${PostgreSQL.spec.builtin ?? ''} hugeint ubigint uinteger usmallint utinyint varchar blob`,
});

export interface EditorOptions {
  doc: string;
  dialect: 'duckdb' | 'sqlite';
  schema: SqlSchema | null;
  label: string;
  testid?: string;
  placeholder?: string;
  onChange(doc: string): void;
  /** Called first for every key; return true when handled (Ctrl+Enter runs, Esc cancels). */
  onKeydown?(event: KeyboardEvent): boolean;
}

export interface SqlEditorHandle {
  setDoc(doc: string): void;
  setLanguage(dialect: 'duckdb' | 'sqlite', schema: SqlSchema | null): void;
  /** Focus, with this selection (offsets into the text) when given. */
  focus(selection?: { anchor: number; head: number }): void;
  destroy(): void;
}

const theme = EditorView.theme({
  '&': {
    border: '1px solid var(--border-strong)',
    borderRadius: 'var(--radius)',
    background: 'var(--surface)',
    color: 'var(--text)',
    fontSize: '0.95rem',
  },
  // The ring is on the element that has focus (the editable content), as for every other control of the app.
  '&.cm-focused': { outline: 'none' },
  '.cm-content:focus': { outline: '2px solid var(--focus)', outlineOffset: '-2px' },
  '.cm-content': { fontFamily: 'var(--mono)', padding: '0.5rem 0', minHeight: '6rem', caretColor: 'var(--text)' },
  '.cm-line': { padding: '0 0.7rem' },
  '.cm-scroller': { lineHeight: '1.45', maxHeight: '24rem', overflow: 'auto' },
  '.cm-tooltip': { background: 'var(--surface)', border: '1px solid var(--border-strong)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { background: 'var(--accent)', color: '#fff' },
});

function language(dialect: 'duckdb' | 'sqlite', schema: SqlSchema | null) {
  return sql({
    dialect: dialect === 'sqlite' ? SQLite : DUCKDB,
    upperCaseKeywords: true,
    ...(schema ? { schema } : {}),
  });
}

export function createSqlEditor(host: HTMLElement, options: EditorOptions): SqlEditorHandle {
  const lang = new Compartment();
  let applying = false;
  // In a shadow root CodeMirror adopts constructed stylesheets instead of adding a <style>
  // element, which the page's Content-Security-Policy (style-src 'self') would block.
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const parent = document.createElement('div');
  shadow.appendChild(parent);
  const view = new EditorView({
    parent,
    root: shadow,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        Prec.highest(EditorView.domEventHandlers({ keydown: (event) => options.onKeydown?.(event) ?? false })),
        history(),
        closeBrackets(),
        bracketMatching(),
        autocompletion({ activateOnTyping: true }),
        keymap.of([...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]), // no indentWithTab: Tab must leave the editor (keyboard users would be trapped)
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        lang.of(language(options.dialect, options.schema)),
        EditorView.lineWrapping,
        theme,
        placeholderExt(options.placeholder ?? ''),
        EditorView.contentAttributes.of({
          'aria-label': options.label,
          spellcheck: 'false',
          autocapitalize: 'off',
          ...(options.testid ? { 'data-testid': options.testid } : {}),
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !applying) options.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    setDoc(doc) {
      if (doc === view.state.doc.toString()) return;
      applying = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc } });
      applying = false;
    },
    setLanguage(dialect, schema) {
      view.dispatch({ effects: lang.reconfigure(language(dialect, schema)) });
    },
    focus(selection) {
      if (selection) {
        const end = view.state.doc.length;
        const at = (n: number) => Math.max(0, Math.min(end, n));
        view.dispatch({ selection: { anchor: at(selection.anchor), head: at(selection.head) } });
      }
      view.focus();
    },
    destroy: () => {
      view.destroy();
      parent.remove();
    },
  };
}
