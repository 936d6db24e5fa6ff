"""Drawing the table scene: felt and seats, the standing bid, our hand, the side panel, and the
overlays (hand-over, menu, rules, winner); the composer panel is drawn by
:mod:`~dudo_p2p.ui.table_composer`, the reveal and table talk by
:mod:`~dudo_p2p.ui.table_reveal`, the geometry is :mod:`~dudo_p2p.ui.table_layout`.

Reads the scene's state and rebuilds its buttons; it never talks to the session.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pygame

from dudo_p2p.ui import draw, theme, waiting
from dudo_p2p.ui.motion import (
    LIFT_S,
    ROLL_S,
    SHAKE_S,
    SLIDE_S,
    ease_out,
    lerp,
)
from dudo_p2p.ui.overlays import draw_ended, draw_menu, draw_rules_overlay, draw_winner
from dudo_p2p.ui.rule_texts import HOUSE_RULE_KEYS
from dudo_p2p.ui.side_panel import draw_side_panel
from dudo_p2p.ui.table_composer import draw_composer
from dudo_p2p.ui.table_layout import (
    CENTER,
    TABLE_RECT,
    dice_row,
    dice_strip,
    own_hand_rect,
    plate_rect,
    seat_pos,
)
from dudo_p2p.ui.table_reveal import (
    bubbles,
    flying_dice,
    reveal_center,
    revealed_dice,
)

if TYPE_CHECKING:
    from dudo_p2p.ui.table_controls import TableControls

PALIFICO_TAG = pygame.Rect(262, 10, 200, 38)  # in the top bar, left of the turn text
TURN_TEXT = pygame.Rect(470, 8, 560, 40)  # the top bar's centre: whose turn it is
PALIFICO_RULE_WIDTH = 420  # the palifico rule under the bid, clear of the side seats

def draw_table(scene: TableControls, surface: pygame.Surface) -> None:
    """Draw the whole table scene and rebuild ``scene.buttons``."""
    scene.buttons = []
    draw.background(surface)
    view = scene.view
    if view is None:
        waiting.draw_waiting(scene, surface)
        return
    # a reveal keeps the cloth of the round it ends, though the next may already be dealt
    palifico = (scene.model.reveal.palifico if scene.model.reveal is not None
                else view.palifico_round is not None)
    draw.felt(surface, TABLE_RECT, palifico=palifico)
    _top_bar(scene, surface)
    hide_all = scene.handover_seat is not None
    for seat in range(view.state.n_seats):
        _seat(scene, surface, seat, hide_all)
    if scene.model.reveal is None:
        _standing_bid(scene, surface)
    else:
        reveal_center(scene, surface)
    if not hide_all:
        bubbles(scene, surface)
    _own_hand(scene, surface, hide_all)
    draw_composer(scene, surface)
    draw_side_panel(scene, surface)
    _toast(scene, surface)
    scene.draw_buttons(surface)
    if scene.model.reveal is not None:
        flying_dice(scene, surface)  # over panels and buttons: a lost die leaves the table
    if scene.handover_seat is not None:
        _handover(scene, surface)
        scene.buttons = []  # modal: a click anywhere hands the device over
    if scene.model.winner is not None and scene.model.reveal is None:
        draw_winner(scene, surface)
    elif scene.model.ended is not None and scene.model.reveal is None:
        draw_ended(scene, surface)
    if scene.overlay == "menu":
        draw_menu(scene, surface)
    elif scene.overlay == "rules":
        draw_rules_overlay(scene.tr, view.rules, surface, HOUSE_RULE_KEYS)
        scene.buttons = []  # modal: R or Esc closes it


def _top_bar(scene: TableControls, surface: pygame.Surface) -> None:
    tr, view = scene.tr, scene.view
    assert view is not None
    pygame.draw.rect(surface, (24, 14, 10), (0, 0, 1280, 56))
    pygame.draw.line(surface, theme.GOLD_DARK, (0, 56), (1280, 56), 2)
    draw.text(surface, tr("app.title"), (20, 10), 50, theme.GOLD)
    # a reveal belongs to the round it ends, though the table has already dealt the next one
    reveal = scene.model.reveal
    round_no = reveal.result.round_no if reveal is not None else view.round_no
    draw.text(surface, tr("table.round", n=max(1, round_no)), (140, 18), 32, theme.CREAM)
    if view.palifico_round is not None and scene.model.reveal is None:
        # the round's kind as a tag beside the turn (the turn must stay readable) and its
        # rule under the standing bid
        banner = PALIFICO_TAG
        pygame.draw.rect(surface, theme.FELT_PALIFICO, banner, border_radius=10)
        pygame.draw.rect(surface, theme.GOLD, banner, width=2, border_radius=10)
        draw.text(surface, tr("table.palifico"), banner.center, 26, theme.CREAM,
                  anchor="center", max_width=banner.width - 12)
    turn = _turn_text(scene)
    color = theme.GOLD if scene.my_turn and not scene.blocked else theme.CREAM
    left = seconds_left(scene)
    if left is not None:
        # the turn timer where everyone looks, not only as a small ring on a plate
        turn = f"{turn}  ·  {tr('table.seconds_left', n=left)}"
        if scene.my_turn and left <= HURRY_S:
            color = theme.RED
    draw.text(surface, turn, TURN_TEXT.center, 36, color, anchor="center",
              max_width=TURN_TEXT.width)
    draw.text(surface, "R " + tr("menu.rules").split(" (")[0] + "  ·  Esc " + tr("menu.title"),
              (1266, 28), 24, theme.MUTED, anchor="midright")


HURRY_S = 10  # our own turn's seconds turn red from here


def seconds_left(scene: TableControls) -> int | None:
    """Whole seconds left on the turn timer of the seat to act now, or None when no timer
    runs (or a reveal, hand-over or the end covers the table)."""
    view = scene.view
    if view is None or view.to_act is None or scene.blocked:
        return None
    deadline = scene.model.deadlines.get(view.to_act)
    if deadline is None:
        return None
    return max(0, int(deadline - scene.now))


def _turn_text(scene: TableControls) -> str:
    view = scene.view
    assert view is not None
    if scene.model.reveal is not None:
        return scene.tr("reveal.title")
    if scene.model.winner is not None:
        return scene.tr("table.game_over")
    if scene.my_turn:
        return scene.tr("table.your_turn")
    if view.to_act is None or view.to_act == scene.session.seat:
        # our seat is next by the rules, but the table has not agreed yet on what came
        # before (a networked round still being dealt, or our own move in flight): not
        # "<our name>'s turn" with every button off
        return scene.tr("table.waiting")
    return scene.tr("table.turn_of", name=_name(scene, view.to_act))


def _name(scene: TableControls, seat: int) -> str:
    return scene.names[seat] if seat < len(scene.names) else f"#{seat + 1}"


def _seat(scene: TableControls, surface: pygame.Surface, seat: int, hide_all: bool) -> None:
    view = scene.view
    assert view is not None
    n = view.state.n_seats
    me = scene.session.seat
    x, y = seat_pos(seat, me, n)
    alive = view.state.alive[seat]
    to_act = view.to_act == seat and scene.model.reveal is None
    count = view.dice_counts[seat]
    reveal = scene.model.reveal
    cup_bottom = y + 18
    if reveal is not None and seat < len(reveal.result.dice) and reveal.result.dice[seat]:
        # the cups rise one by one: under a cup still down, the dice are not drawn yet
        lift = scene.motion.progress(scene.now, reveal.film.lift_start(seat), LIFT_S)
        if lift > 0:
            revealed_dice(scene, surface, seat, (x, cup_bottom - 18))
        if lift < 1.0:
            draw.cup(surface, (x, int(cup_bottom - 90 * ease_out(lift))), 70)
    elif alive:
        shake = hop = 0
        if scene.motion.running(scene.now, scene.shake_started, SHAKE_S):
            # rattled side to side and lifted in small hops, each seat out of step
            assert scene.shake_started is not None
            t = scene.now - scene.shake_started
            shake = int(7 * math.sin(t * 40 + seat))
            hop = -int(6 * abs(math.sin(t * 23 + 2 * seat)))
        others = view.others.get(seat) if not hide_all else None
        if others:
            dice_row(surface, (x, cup_bottom - 22), others, 30)
        else:
            draw.cup(surface, (x + shake, cup_bottom + hop), 66, glow=to_act)
    plate = plate_rect((x, y))
    edge = theme.GOLD if to_act else theme.PANEL_EDGE
    draw.panel(surface, plate, (40, 26, 18), edge, radius=10, alpha=225)
    if to_act:
        pygame.draw.rect(surface, theme.GOLD, plate.inflate(6, 6), width=3, border_radius=12)
    info = scene.players[seat] if seat < len(scene.players) else None
    name = _name(scene, seat)
    if seat == me and not scene.hotseat and not scene.watching:
        name = f"{name} ({scene.tr('table.you')})"
    draw.text(surface, name, (plate.left + 10, plate.top + 6), 26,
              theme.GOLD if to_act else (theme.CREAM if alive else theme.DIM), shadow=False,
              max_width=plate.width - 28)
    # the key's fingerprint only under the pointer (issue 15: on the waiting room's roster
    # and a seat's hover, not under every name; a name that collides carries it already)
    hovered = plate.collidepoint(scene.mouse)
    tag = info.fingerprint if info is not None and hovered else ""
    if info is not None and info.is_bot:
        tag = f"{tag} · {scene.tr('table.bot')}" if tag else scene.tr("table.bot")
    if info is not None and not info.connected:
        tag = scene.tr("table.disconnected")
    if view.rules.revolver and alive:
        # V20: the bullets in this seat's revolver decide its next spin: always in sight
        # (in place of the fingerprint: the plate has room for one short tag)
        bullets = scene.tr("table.bullets", n=view.state.bullets[seat])
        bot = info is not None and info.is_bot
        tag = f"{bullets} · {scene.tr('table.bot')}" if bot else bullets
    if not alive:
        tag = scene.tr("table.eliminated")
    if seat in scene.model.talk.muted:
        tag = scene.tr("table.muted")  # in place of the fingerprint: it must be read
    elif to_act and seat != scene.session.seat and not scene.hotseat:
        tag = scene.tr("table.thinking")  # whose turn it is, said where the eye looks
    # dice left, as small blank dice on the plate's right; the tag gets the room before them
    strip = dice_strip(plate, count)
    draw.text(surface, tag, (plate.left + 10, plate.top + 32), 19, theme.MUTED, shadow=False,
              max_width=strip.left - 6 - (plate.left + 10))
    for i in range(count):
        r = pygame.Rect(strip.left + i * 15, strip.top, 12, 12)
        pygame.draw.rect(surface, theme.DIE, r, border_radius=3)
    deadline = scene.model.deadlines.get(seat)
    if to_act and deadline is not None:
        left = max(0.0, deadline - scene.now)
        total = scene.request.turn_timer_s or 60.0
        draw.timer_ring(surface, (plate.right + 4, plate.top + 4), 18, left / total)
        draw.text(surface, str(int(left)), (plate.right + 4, plate.top + 4), 20, theme.CREAM,
                  anchor="center")


def _standing_bid(scene: TableControls, surface: pygame.Surface) -> None:
    tr, view = scene.tr, scene.view
    assert view is not None
    cx, cy = CENTER[0], CENTER[1] - 4
    bid = view.standing_bid
    if view.palifico_round is not None:
        key = "table.palifico_rule_wild" if view.rules.palifico_wilds else "table.palifico_rule"
        draw.text(surface, tr(key), (cx, cy + 112), 24, theme.GOLD, anchor="center",
                  max_width=PALIFICO_RULE_WIDTH)
    if bid is None:
        draw.text(surface, tr("table.no_bid"), (cx, cy), 34, theme.CREAM, anchor="center")
        return
    if scene.slide is not None and scene.slide[0] == bid and scene.slide[1] is not None:
        # a new bid slides in from its bidder's seat
        t = scene.motion.progress(scene.now, scene.slide[2], SLIDE_S)
        if t < 1.0:
            start = seat_pos(scene.slide[1], scene.session.seat, view.state.n_seats)
            cx, cy = lerp(start, (cx, cy), ease_out(t))
    draw.text(surface, tr("table.standing_bid").upper(), (cx, cy - 70), 24, theme.MUTED,
              anchor="center")
    r = draw.text(surface, f"{bid.count} ×", (cx - 14, cy - 14), 64, theme.CREAM,
                  anchor="midright")
    draw.die(surface, (r.right + 44, cy - 14), 58, bid.face)
    draw.text(surface, bid.spoken(tr.lang), (cx, cy + 40), 44, theme.GOLD, anchor="center")
    if view.standing_bidder is not None:
        draw.text(surface, tr("table.by", name=_name(scene, view.standing_bidder)),
                  (cx, cy + 76), 26, theme.CREAM, anchor="center", max_width=PALIFICO_RULE_WIDTH)


def _own_hand(scene: TableControls, surface: pygame.Surface, hide_all: bool) -> None:

    tr, view = scene.tr, scene.view
    assert view is not None
    box = own_hand_rect()
    draw.panel(surface, box)
    if scene.watching:  # a spectator holds no hand: say what it is looking at instead
        draw.text(surface, tr("table.watching"), (box.left + 14, box.top + 10), 28, theme.GOLD)
        badge = scene.model.badge
        if badge is not None and scene.model.badge_warns:
            _not_verified(surface, box, badge(tr), tr("table.watching_flagged"))
            return
        if badge is not None:  # "Verified to move N", kept until the next round's
            draw.text(surface, badge(tr), (box.left + 14, box.top + 46), 24, theme.GOLD,
                      max_width=box.width - 28)
        draw.text_block(surface, tr("table.watching_help"), box.inflate(-28, -84).move(0, 32),
                        22, theme.CREAM)
        return
    draw.text(surface, tr("table.your_dice"), (box.left + 14, box.top + 10), 28, theme.GOLD)
    dice = view.own_dice
    if hide_all:
        return
    if scene.model.reveal is not None:
        # the next round's dice wait under the cup until the reveal is over: beside the
        # revealed hand they read as if our dice had changed
        draw.cup(surface, (box.centerx, box.top + 138), 92)
        return
    if dice is None:
        if view.palifico_round is not None and view.state.alive[scene.session.seat]:
            draw.text_block(surface, tr("table.hidden_open"),
                            box.inflate(-28, -60).move(0, 20), 22, theme.MUTED)
        elif scene.looking and view.state.alive[scene.session.seat]:
            # M before the deal: the press was taken, the dice show when they come
            draw.text_block(surface, tr("table.dealing"), box.inflate(-28, -60).move(0, 20),
                            22, theme.MUTED)
        return
    # how many dice the whole table holds: what every bid is measured against
    draw.text(surface, tr("table.total_dice", n=view.total_dice),
              (box.right - 14, box.top + 16), 22, theme.MUTED, anchor="topright",
              max_width=150)
    if scene.looking:
        dice = tuple(sorted(dice))  # sorted: a hand is read at a glance
        per_row = 5
        size = 50
        # rolled dice tumble: random faces and tilts while the cup shakes, then the tilt
        # dies down on the real faces; at rest (or reduced motion) exactly the still hand
        roll = scene.motion.progress(scene.now, scene.shake_started, SHAKE_S + ROLL_S)
        shaking = roll < SHAKE_S / (SHAKE_S + ROLL_S)
        for i, face in enumerate(dice):
            x = box.left + 42 + (i % per_row) * 58
            yy = box.top + 86 + (i // per_row) * 58
            angle = 0.0
            if roll < 1.0:
                angle = scene._tumble.uniform(-30, 30) * (1.0 if shaking else 1 - roll)
                face = scene._tumble.randint(1, 6) if shaking else face
                yy -= int(10 * abs(math.sin(roll * 9 + i))) if shaking else 0
            draw.die(surface, (x, yy), size, face, angle=angle)
        draw.text(surface, tr("table.hide"), (box.centerx, box.bottom - 18), 20, theme.MUTED,
                  anchor="center")
    else:
        draw.cup(surface, (box.centerx, box.top + 138), 92, glow=scene.my_turn)
        draw.text(surface, tr("table.look"), (box.centerx, box.bottom - 18), 20, theme.MUTED,
                  anchor="center")


def _not_verified(surface: pygame.Surface, box: pygame.Rect, said: str, help_text: str) -> None:
    """The spectator's "NOT verified: item N: why" standing in its panel as the toast does (a
    red box), whole on up to three lines: shrunk to one line it was unreadable and cut off,
    in the gold of the good news."""
    lines = draw.wrap(said, 20, box.width - 48)[:3]
    warn = pygame.Rect(box.left + 10, box.top + 44, box.width - 20, 14 + 24 * len(lines))
    draw.panel(surface, warn, (70, 24, 20), theme.RED, radius=10)
    for i, line in enumerate(lines):
        draw.text(surface, line, (warn.left + 14, warn.top + 7 + i * 24), 20, theme.CREAM)
    rest = pygame.Rect(box.left + 14, warn.bottom + 8, box.width - 28,
                       box.bottom - warn.bottom - 12)
    draw.text_block(surface, help_text, rest, 20, theme.CREAM)


def _toast(scene: TableControls, surface: pygame.Surface) -> None:
    text = scene.model.toast_text(scene.tr, scene.now)
    if text is None:
        return
    box = pygame.Rect(0, 0, 760, 44)
    box.midtop = (CENTER[0], 62)
    draw.panel(surface, box, (70, 24, 20), theme.RED, radius=10, alpha=235)
    draw.text(surface, text, box.center, 24, theme.CREAM, anchor="center",
              max_width=box.width - 24)


def _handover(scene: TableControls, surface: pygame.Surface) -> None:
    seat = scene.handover_seat
    assert seat is not None
    shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    shade.fill((10, 6, 4, 235))
    surface.blit(shade, (0, 0))
    name = _name(scene, seat)
    draw.cup(surface, (640, 330), 140, glow=True)
    draw.text(surface, scene.tr("handover.title", name=name), (640, 420), 56, theme.GOLD,
              anchor="center", max_width=1200)
    draw.text(surface, scene.tr("handover.hint", name=name), (640, 480), 28, theme.CREAM,
              anchor="center", max_width=1200)
