// MoreControls: the secondary settings of a figure, inline on wide screens and folded behind a
// "More controls" button on phones (shared/Fold.tsx), so a phone shows the main setting and the
// figure before a wall of selects.
import type { ComponentChildren } from 'preact';
import { Fold } from './Fold';

export const MoreControls = ({ children }: { children: ComponentChildren }) =>
  <Fold more="More controls" fewer="Fewer controls" class="secondary">{children}</Fold>;
