"""The composer panel at the bottom of the table: the opener's setup choices, or the count and
face pickers with the bid, ¡Dudo! and ¡Calzo! buttons and the help line (what is short, or
whose turn it is), and the variant calls (matar, pasar, doubt a claim) under the felt.

Reads the scene's state and adds to its buttons; it never talks to the session.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import pygame

from dudo_p2p.rules import (
    FACE_NAMES,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    Pasar,
    Picado,
)
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.composer import legal_bids
from dudo_p2p.ui.i18n import PALIFICO_MODE_KEYS
from dudo_p2p.ui.table_layout import CENTER, TABLE_RECT
from dudo_p2p.ui.widgets import Button

if TYPE_CHECKING:
    from dudo_p2p.ui.table_controls import TableControls

COMPOSER = pygame.Rect(346, 606, 574, 186)

_CALL_KEYS: dict[type, str] = {
    Matar: "table.matar",
    Pasar: "table.pasar",
    DoubtClaim: "table.doubt_claim",
}


def draw_composer(scene: TableControls, surface: pygame.Surface) -> None:
    """The composer panel: the setup choices, or the count and face pickers, the bid and
    call buttons and the help line; the variant calls sit under the felt."""
    tr, view = scene.tr, scene.view
    assert view is not None
    box = COMPOSER
    draw.panel(surface, box)
    if scene.handover_seat is not None or scene.model.winner is not None:
        return
    if scene.watching:  # a spectator plays nothing: no controls that can never light up
        draw.text(surface, tr("table.watching_note"), box.center, 28, theme.CREAM,
                  anchor="center", max_width=box.width - 40)
        return
    if not scene.hotseat and not view.state.alive[scene.session.seat]:
        # out of the game: no controls that can never light up, nor "wait for your turn";
        # with our own bots left, the rest of the game can go at once ("skip to the end")
        skip = scene.can_skip
        centre = (box.centerx, box.top + 50) if skip else box.center
        draw.text(surface, tr("table.you_are_out"), centre, 30, theme.CREAM,
                  anchor="center", max_width=box.width - 40)
        if skip:
            rect = pygame.Rect(0, 0, 300, 56)
            rect.center = (box.centerx, box.top + 124)
            scene.buttons.append(Button(rect, tr("table.skip"), scene.skip_to_end, size=26,
                                        name="skip"))
        return
    choices = scene.choices()
    if choices:
        draw.text(surface, tr("table.choose"), (box.left + 20, box.top + 14), 28, theme.GOLD)
        if any(isinstance(a, ChooseDirection) for a in choices):
            # what the choice means: who speaks after the opener, and for how long
            key = ("table.direction_help_round" if view.rules.direction_each_round
                   else "table.direction_help")
            draw.text_block(surface, tr(key), pygame.Rect(box.left + 20, box.top + 118,
                                                          box.width - 40, 64), 20, theme.CREAM)
        for i, action in enumerate(choices):
            if isinstance(action, ChooseDirection):
                label = tr("table.clockwise" if action.clockwise else "table.counterclockwise")
            else:
                assert isinstance(action, ChoosePalifico)
                label = tr(PALIFICO_MODE_KEYS.get(action.mode, "palifico.normal"))
            rect = pygame.Rect(box.left + 20 + (i % 3) * 182, box.top + 56 + (i // 3) * 62,
                               172, 54)
            scene.buttons.append(Button(rect, label, partial(scene.submit, action), size=24,
                                        name=f"choice_{i}"))
        return
    bids = legal_bids(scene.legal)
    comp = scene.composer
    my_turn = scene.my_turn
    top = box.top + 12
    draw.text(surface, tr("table.count"), (box.left + 20, top), 22, theme.MUTED)
    scene.buttons.append(Button(pygame.Rect(box.left + 16, top + 24, 46, 46), "-",
                                lambda: comp.change_count(-1), size=34, name="count_minus"))
    draw.text(surface, str(comp.count), (box.left + 100, top + 47), 50, theme.CREAM,
              anchor="center")
    scene.buttons.append(Button(pygame.Rect(box.left + 138, top + 24, 46, 46), "+",
                                lambda: comp.change_count(1), size=34, name="count_plus"))
    # the face's name beside the word, so "tontos", "quinas"... are learnt by playing
    draw.text(surface, tr("table.face_named", face=FACE_NAMES[tr.lang][comp.face]),
              (box.left + 204, top), 22, theme.MUTED, max_width=360)
    for face in range(1, 7):
        rect = pygame.Rect(box.left + 200 + (face - 1) * 61, top + 22, 56, 50)
        selected = face == comp.face
        if selected:
            pygame.draw.rect(surface, theme.GOLD, rect.inflate(4, 4), border_radius=10)
        scene.buttons.append(_FaceButton(rect, "", partial(scene.pick_face, face),
                                         name=f"face_{face}", face=face, selected=selected))
    row = top + 78
    bid_ok = my_turn and comp.bid in bids
    scene.buttons.append(Button(pygame.Rect(box.left + 16, row, 200, 58), tr("table.bid"),
                                scene.bid_now, enabled=bid_ok and not scene.blocked, size=32,
                                hotkey="Enter", name="bid"))
    scene.buttons.append(Button(pygame.Rect(box.left + 228, row, 160, 58), tr("table.dudo"),
                                lambda: scene.call(Dudo),
                                enabled=scene.offered(Dudo) is not None and not scene.blocked,
                                color=theme.BUTTON_DANGER, size=32, hotkey="D", name="dudo"))
    scene.buttons.append(Button(pygame.Rect(box.left + 400, row, 160, 58), tr("table.calzo"),
                                lambda: scene.call(Calzo),
                                enabled=scene.offered(Calzo) is not None and not scene.blocked,
                                color=theme.BUTTON_CALZO, size=32, hotkey="C", name="calzo"))
    help_line = "" if scene.blocked else comp.help_text(tr, bids, my_turn, scene.preview_min())
    if not my_turn and view.to_act == scene.session.seat and not scene.blocked:
        help_line = tr("table.waiting")
    ok = my_turn and comp.bid in bids
    draw.text(surface, help_line, (box.left + 20, box.bottom - 15), 23,
              theme.GREEN if ok else theme.GOLD, anchor="midleft", max_width=box.width - 40)
    _draw_variant_calls(scene)


def _draw_variant_calls(scene: TableControls) -> None:
    """The variant calls offered now, in a row under the felt: matar, pasar, doubting a
    claim (named for the claim: a pass or a picado), and the picado (V17): the composed bid
    made as a picado, lit only when that bid may be one (key I)."""
    tr, view = scene.tr, scene.view
    assert view is not None
    extras: list[Button] = []
    for kind in scene.extra_calls():
        label = tr(_CALL_KEYS[kind])
        if kind is DoubtClaim and isinstance(view.state.claim, Picado):
            label = tr("table.doubt_picado")
        extras.append(Button(pygame.Rect(0, 0, 190, 46), label, partial(scene.call, kind),
                             size=26, name=f"extra_{kind.__name__.lower()}"))
    if scene.picado_offered:
        extras.append(Button(pygame.Rect(0, 0, 190, 46), tr("table.picado"),
                             scene.picado_now, enabled=scene.picado_ok, size=26, hotkey="I",
                             name="picado"))
    for i, button in enumerate(extras):
        button.rect.midbottom = (int(CENTER[0] + (i - (len(extras) - 1) / 2) * 200),
                                 TABLE_RECT.bottom + 26)
        scene.buttons.append(button)


class _FaceButton(Button):
    """A face choice drawn as a die."""

    def __init__(self, rect: pygame.Rect, label: str, action: Callable[[], object], *,
                 name: str, face: int, selected: bool) -> None:
        super().__init__(rect, label, action, name=name)
        self.face = face
        self.selected = selected

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int]) -> None:
        hover = self.rect.collidepoint(mouse)
        bg = (96, 66, 40) if hover or self.selected else (66, 44, 30)
        pygame.draw.rect(surface, bg, self.rect, border_radius=8)
        draw.die(surface, self.rect.center, 36, self.face)
