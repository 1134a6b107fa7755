/**
 * Keyboard navigation of a case table: j / k (or ↓ / ↑) move the cursor row,
 * Enter opens it, Esc clears the cursor, then the filters. Keys typed in a
 * form field are left alone (the search box needs its j and k).
 */
import type { CaseFilter } from '../../state/case-list.svelte.ts';

export function listKeydown(
  filter: CaseFilter,
  ids: () => string[],
  open: (id: string) => void,
): (event: KeyboardEvent) => void {
  return (event) => {
    const target = event.target as HTMLElement | null;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
      if (event.key === 'Escape' && target.tagName === 'INPUT') {
        filter.text = '';
        (target as HTMLInputElement).blur();
      }
      return;
    }
    const list = ids();
    const at = filter.cursor === null ? -1 : list.indexOf(filter.cursor);
    const move = (to: number) => {
      if (!list.length) return;
      filter.cursor = list[Math.max(0, Math.min(list.length - 1, to))]!;
      event.preventDefault();
      requestAnimationFrame(() => document.querySelector(`[data-cursor="true"]`)?.scrollIntoView({ block: 'nearest' }));
    };
    if (event.key === 'j' || event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'k' || event.key === 'ArrowUp') move(at < 0 ? 0 : at - 1);
    else if (event.key === 'Enter' && at >= 0) {
      event.preventDefault();
      open(list[at]!);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (filter.cursor !== null) filter.cursor = null;
      else filter.clear();
    }
  };
}
