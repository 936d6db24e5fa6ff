"""The words of the launch prompt "a game is in progress: resume?" (resume_prompt.py), in
Spanish and English; merged into the one catalogue by :mod:`~dudo_p2p.ui.i18n`."""

from __future__ import annotations

ES: dict[str, str] = {
    "resume.title": "Hay una partida en curso en la mesa {table}",
    "resume.ask": "¿Volver a tu asiento? Si aún estás dentro del tiempo de reconexión, "
                  "retomas la partida donde quedó.",
    "resume.yes": "Volver a la partida",
    "resume.no": "Ahora no",
}

EN: dict[str, str] = {
    "resume.title": "A game is in progress at table {table}",
    "resume.ask": "Take your seat back? Within the table's reconnect grace you pick the "
                  "game up where it stopped.",
    "resume.yes": "Resume the game",
    "resume.no": "Not now",
}
