"""A key held down while the window changes screens is not a new press on the next one.

pygame repeats a held key (``pygame.key.set_repeat``, for the count and face arrows) from a
timer of its own: when the program is busy for more than the repeat delay between reading a
key's press and reading its release, the release comes after repeated presses. Leaving a
waiting room can take that long (a decline flushed to the old table, the nodes closed, the
bot processes stopped and waited for), so one Esc that went back to the lobby arrived at the
lobby a second time, and the lobby's Esc quit the program: the window closed after one Esc
(seen once after "Play again"; ``tests/ui/test_held_keys.py`` makes pygame repeat it).
:class:`HeldKeys` drops a key press that comes while the same key is still held since it was
pressed on another screen; a press after its release, or after another key or a click, is
new and goes through.
"""

from __future__ import annotations

import pygame


class HeldKeys:
    """The keys held down, and the screen (scene) each was pressed on."""

    def __init__(self) -> None:
        self._pressed_on: dict[int, object] = {}

    def carried_over(self, event: pygame.event.Event, scene: object) -> bool:
        """True for a press of a key held down since it was pressed on a screen other than
        ``scene``: pygame's repeat, to be dropped. Notes releases, presses and clicks."""
        if event.type == pygame.KEYUP:
            self._pressed_on.pop(event.key, None)
            return False
        if event.type == pygame.MOUSEBUTTONDOWN:
            self._pressed_on.clear()  # the player did something else: no key carries on
            return False
        if event.type != pygame.KEYDOWN:
            return False
        pressed_on = self._pressed_on.get(event.key)
        if pressed_on is not None and pressed_on is not scene:
            return True
        self._pressed_on = {event.key: scene}  # another key stops an earlier one repeating
        return False
