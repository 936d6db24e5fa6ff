"""Every word the table shows, in Spanish and English, under the same keys.

``Tr(lang)(key, **args)`` formats one message with ``str.format``. Keys are plain string
literals in the code (never built with f-strings), so a test can check that every key used
exists in both languages. Game terms follow rules.md: pinta, As, Tonto, Tren, Cuadra, Quina,
Sexto, cacho, apuesta, ¡Dudo!, ¡Calzo!, palifico.
"""

from __future__ import annotations

from collections.abc import Mapping

LANGS = ("es", "en")

# Keys picked from a value at run time are listed here, so the catalogue test sees them.
FACE_KEYS = ("face.1", "face.2", "face.3", "face.4", "face.5", "face.6")
LEVEL_KEYS = {"easy": "level.easy", "normal": "level.normal", "hard": "level.hard",
              "expert": "level.expert"}
HOUSE_RULE_KEYS = tuple(f"house.{i}" for i in range(1, 12))  # house.1 .. house.11
LEFT_REASON_KEYS = {
    "timeout": "left.timeout",
    "removed": "left.removed",
    "forfeit": "left.forfeit",
    "eliminated": "left.eliminated",
    "quit": "left.quit",
}
CHEAT_KEYS = {
    "equivocation": "cheat.equivocation",
    "bad_reveal": "cheat.bad_reveal",
    "bad_signature": "cheat.bad_signature",
}
KIND_KEYS = {
    "dudo": "reveal.kind.dudo",
    "calzo": "reveal.kind.calzo",
    "matar": "reveal.kind.matar",
    "pasar": "reveal.kind.pasar",
    "picado": "reveal.kind.picado",
}
VALUE_KEYS = {
    "ceil_half": "value.ceil_half",
    "half_plus_one": "value.half_plus_one",
    "nothing": "value.nothing",
    "bidder_loses": "value.bidder_loses",
    "bank": "value.bank",
    "forbidden": "value.forbidden",
}
PALIFICO_MODE_KEYS = {
    "normal": "palifico.normal",
    "open": "palifico.open",
    "closed": "palifico.closed",
    "decline": "palifico.decline",
    "obligar": "palifico.obligar",
    "none": "palifico.none",
}

ES: dict[str, str] = {
    "replay.title": "Repetición · paso {step} de {steps} · ronda {round}",
    "replay.keys": (
        "Flechas izq./der.: paso · arriba/abajo: ronda · Inicio/Fin · F: dados desde el "
        "principio · L: idioma · Esc: salir"
    ),
    "replay.removed": "{name} sale de la mesa",
    "replay.reveal": "Se levantan los cachos",
    "replay.start_round": "Empieza la ronda {round}",
    "replay.chance": "Con sus dados, esta apuesta tenía un {pct} % de ser cierta",
    "replay.dice_from_start": "Dados a la vista desde el principio (F)",
    "replay.dice_at_reveal": "Dados ocultos hasta que se levantan (F)",
    "replay.stats": "Faroles y cantos",
    "replay.bids_held": "apuestas ciertas: {held} de {bids}",
    "replay.calls_right": "¡Dudo! acertados: {right}/{doubts} · ¡Calzo!: {calzo_right}/{calzos}",
    "replay.winner": "Gana {name}",
    "app.title": "Dudo",
    "app.subtitle": "Cachos entre amigos, sin servidor: dados justos, mesa firmada",
    "app.no_display": (
        "dudo-p2p play necesita una pantalla (no hay DISPLAY ni WAYLAND_DISPLAY); "
        "sin ventana usa: dudo-p2p sim, dudo-p2p bot, dudo-p2p tournament"
    ),
    "face.1": "As",
    "face.2": "Tonto",
    "face.3": "Tren",
    "face.4": "Cuadra",
    "face.5": "Quina",
    "face.6": "Sexto",
    "level.easy": "fácil",
    "level.normal": "normal",
    "level.hard": "difícil",
    "level.expert": "experto",
    "value.ceil_half": "mitad",
    "value.half_plus_one": "mitad + 1",
    "value.nothing": "nada",
    "value.bidder_loses": "pierde quien apostó",
    "value.bank": "dado de reserva",
    "value.forbidden": "prohibido",
    "common.yes": "sí",
    "common.no": "no",
    "common.back": "Volver",
    "common.seconds": "{n} s",
    "common.dice_one": "1 dado",
    "common.dice_many": "{n} dados",
    "lobby.tables": "Mesas en la red",
    "lobby.no_tables": "No se encontraron mesas en la red",
    "lobby.table_row": "{code}  ·  {players}/{seats} jugadores",
    "lobby.other_language": "English",
    "lobby.join": "Unirse",
    "lobby.join_address": "Unirse por dirección",
    "lobby.address_hint": "host:puerto",
    "lobby.bad_address": "Dirección no válida: escribe host:puerto",
    "lobby.quick": "Jugar ya contra bots",
    "lobby.play_bots": "Jugar contra {n} bots",
    "lobby.hotseat": "Mismo dispositivo ({n} jugadores)",
    "lobby.create": "Crear mesa",
    "lobby.create_button": "Crear mesa y esperar",
    "lobby.rules": "Reglas (clic para cambiar)",
    "lobby.starting_dice": "Dados iniciales",
    "lobby.bots": "Bots en asientos vacíos",
    "lobby.level": "Nivel de los bots",
    "lobby.timer": "Tiempo por turno",
    "lobby.timer_off": "sin límite",
    "lobby.page": "Página {page}/{pages}",
    "lobby.hint": "Clic en una regla para cambiarla. F11 pantalla completa. Esc salir.",
    "table.round": "Ronda {n}",
    "table.palifico": "¡PALIFICO!",
    "table.palifico_rule": "Palifico: ases sin comodín, la pinta queda fija",
    "table.palifico_rule_wild": "Palifico: la pinta queda fija",
    "table.game_over": "Fin de la partida",
    "table.history_of": "Apuestas de la ronda {n}",
    "table.round_outcome": "Ronda {n}: {what}",
    "table.round_voided": "Ronda {n} anulada: se reparten los dados de nuevo",
    "table.you_are_out": "Te quedaste sin dados: mira cómo termina",
    "table.seconds_left": "{n} s",
    "table.your_turn": "¡Tu turno!",
    "table.turn_of": "Turno de {name}",
    "table.waiting": "Esperando a la mesa...",
    "table.you": "tú",
    "table.you_name": "Jugador",
    "table.bot": "bot",
    "table.disconnected": "desconectado",
    "table.eliminated": "sin dados",
    "table.look": "M o clic: mirar tus dados",
    "table.hide": "M o clic: tapar",
    "table.your_dice": "Tus dados",
    "table.hidden_open": "Palifico abierto: tú no ves tus dados",
    "table.standing_bid": "Apuesta",
    "table.by": "de {name}",
    "table.no_bid": "Nadie ha apostado aún",
    "table.history": "Apuestas de la ronda",
    "table.messages": "Mesa",
    "table.count": "Cantidad",
    "table.face": "Pinta",
    "table.bid": "Apostar",
    "table.dudo": "¡Dudo!",
    "table.calzo": "¡Calzo!",
    "table.matar": "¡Mato!",
    "table.pasar": "Paso",
    "table.doubt_claim": "¡Dudo del paso!",
    "table.clockwise": "Sentido horario",
    "table.counterclockwise": "Sentido antihorario",
    "table.choose": "Elige antes de abrir:",
    "table.min_raise": "Muy baja: lo mínimo en {face} es {bid}",
    "table.no_raise_face": "No se puede apostar a {face} ahora",
    "table.legal_bid": "Apuesta válida: {bid}",
    "table.not_your_turn": "No es tu turno: espera",
    "table.face_named": "Pinta: {face}",
    "table.total_dice": "En la mesa: {n} dados",
    "table.bullets": "balas {n}/6",
    "table.direction_help": (
        "Abres tú: eliges hacia dónde gira el turno toda la partida (horario: sigue quien "
        "está a tu izquierda). Tus dados se reparten al elegir."
    ),
    "table.direction_help_round": (
        "Abres tú: eliges hacia dónde gira el turno esta ronda (horario: sigue quien está a "
        "tu izquierda). Tus dados se reparten al elegir."
    ),
    "table.expected_blind": "Sin contar tus dados (tapados), esperados en la mesa: {x} {face}",
    "table.history_more": "{n} más arriba: rueda o RePág",
    # no-break spaces keep each number with its name when the line wraps
    "table.legend": ("Pintas: 1\u00a0As · 2\u00a0Tonto · 3\u00a0Tren · 4\u00a0Cuadra · "
                     "5\u00a0Quina · 6\u00a0Sexto"),
    "lobby.play_bot_one": "Jugar contra 1 bot",
    "table.prob": "Probabilidad de que se cumpla: {p}%",
    "table.expected": "Con tus dados, esperados en la mesa: {x} {face}",
    "table.prob_hint": "P: probabilidad",
    "table.keys": (
        "Enter apostar · D dudo · C calzo · M mirar · P probabilidad · R reglas · Esc menú"
    ),
    "table.timer": "{s} s",
    "table.illegal": "Esa jugada no vale ahora: {why}",
    "history.raise": "{name}: {bid}",
    "history.dudo": "{name}: ¡Dudo!",
    "history.calzo": "{name}: ¡Calzo!",
    "history.matar": "{name}: ¡Mato!",
    "history.pasar": "{name}: paso",
    "history.picado": "{name}: {bid}, ¡picado!",
    "history.doubt_claim": "{name}: ¡dudo!",
    "history.direction_cw": "{name}: sentido horario",
    "history.direction_ccw": "{name}: sentido antihorario",
    "history.palifico": "{name}: palifico {mode}",
    "palifico.normal": "normal",
    "palifico.open": "abierto",
    "palifico.closed": "cerrado",
    "palifico.decline": "rechazado",
    "palifico.obligar": "¡obligo!",
    "palifico.none": "sin palifico",
    "reveal.title": "¡Arriba los cachos!",
    "reveal.kind.dudo": "{caller} dudó de {target}: {bid}",
    "reveal.kind.calzo": "{caller} calzó {bid}",
    "reveal.kind.matar": "{caller} mató {bid}",
    "reveal.kind.pasar": "{caller} dudó del paso de {target}",
    "reveal.kind.picado": "{caller} dudó del picado de {target}",
    "reveal.held": "En la mesa hay {n}",
    "reveal.loses_one": "{name} pierde un dado",
    "reveal.loses_many": "{name} pierde {n} dados",
    "reveal.gains": "{name} recupera un dado",
    "reveal.banked": "{name} guarda un dado de reserva",
    "reveal.eliminated": "{name} se queda sin dados",
    "reveal.shot_fired": "¡Bang! El revólver de {name} dispara",
    "reveal.shot_empty": "Clic... el revólver de {name} no dispara",
    "reveal.continue": "Espacio o clic para seguir",
    "left.timeout": "{name} se quedó sin tiempo y sale de la mesa",
    "left.removed": "La mesa expulsó a {name}",
    "left.forfeit": "{name} abandona la partida",
    "left.eliminated": "{name} se queda sin dados",
    "left.quit": "{name} se fue de la mesa",
    "left.other": "{name} dejó la mesa",
    "cheat.equivocation": "¡Trampa! {name} firmó dos jugadas distintas y queda fuera",
    "cheat.bad_reveal": "¡Trampa! Los dados de {name} no cuadran con lo prometido; queda fuera",
    "cheat.bad_signature": "¡Trampa! {name} envió una firma falsa y queda fuera",
    "cheat.other": "¡Trampa! {name} fue descubierto y queda fuera",
    "notice.unknown": "Aviso de la mesa: {key}",
    "over.title": "¡{name} gana la partida!",
    "over.you_win": "¡Ganaste la partida!",
    "over.play_again": "Jugar otra vez",
    "over.lobby": "Volver al salón",
    "over.quit": "Salir",
    "over.place": "{n}.º {name}",
    "over.rounds": "{n} rondas",
    "menu.title": "Menú",
    "menu.resume": "Seguir jugando",
    "menu.rules": "Reglas (R)",
    "menu.language": "Idioma: español",
    "menu.fullscreen": "Pantalla completa (F11)",
    "menu.lobby": "Dejar la mesa",
    "menu.quit": "Salir del juego",
    "rules.title": "Reglas de la mesa",
    "rules.house": "La mesa de la casa",
    "rules.active": "Variantes activas",
    "rules.none": "Ninguna: se juega la mesa de la casa",
    "rules.start_dice": "Cada jugador empieza con {n} dados.",
    "rules.close": "R o Esc para volver",
    "house.1": "Todos agitan el cacho y miran solo sus dados. Quien abre apuesta primero.",
    "house.2": "Una apuesta dice cuántos dados de una pinta hay en toda la mesa, no en tu mano.",
    "house.3": "Los ases son comodín: cuentan como la pinta apostada (salvo apostando a ases).",
    "house.4": "Subir: más cantidad con cualquier pinta, o la misma cantidad con pinta mayor.",
    "house.5": "No se abre con ases. A ases: la mitad, redondeando arriba. Entre ases: uno más.",
    "house.6": "De ases a otra pinta: el doble más uno («tres ases», luego «siete tontos»).",
    "house.7": "¡Dudo!: si hay menos de lo apostado pierde quien apostó; si no, quien dudó.",
    "house.8": "¡Calzo!: si hay exactamente lo apostado recuperas un dado; si no, pierdes uno.",
    "house.9": "Palifico: quien queda con un dado abre; ases sin comodín y la pinta no cambia.",
    "house.10": "Quien pierde o gana un dado abre la ronda siguiente. Gana el último con dados.",
    "house.11": "Quien abre la partida elige el sentido: horario (sigue quien está a su "
                "izquierda) o antihorario.",
    "handover.title": "Pasa el dispositivo a {name}",
    "handover.hint": "Que nadie más mire. {name}: pulsa Espacio o haz clic cuando estés listo.",
    "hotseat.player": "Jugador {n}",
    "lobby.names": "Nombres de los {n} jugadores",
    "lobby.names_hint": "Vacío: «Jugador n». Hasta {n} letras. Tab: siguiente.",
    "lobby.names_back": "Volver",
    "lobby.names_start": "Empezar la partida",
    "app.names_need_hotseat": "--names solo sirve con --hotseat N (jugadores en un dispositivo)",
    "app.too_many_names": "--names da {names} nombres para {n} jugadores; quita los que sobran",
    "error.session": "No se pudo abrir la mesa: {why}",
    "error.join_unavailable": "Unirse por dirección aún no está disponible en esta versión.",
    "error.generic": "Algo falló en la mesa: {why}",
}

EN: dict[str, str] = {
    "replay.title": "Replay · step {step} of {steps} · round {round}",
    "replay.keys": (
        "Left/right arrows: step · up/down: round · Home/End · F: dice from the start · "
        "L: language · Esc: quit"
    ),
    "replay.removed": "{name} leaves the table",
    "replay.reveal": "The cups are lifted",
    "replay.start_round": "Round {round} begins",
    "replay.chance": "From its bidder's dice, this bid had a {pct} % chance to hold",
    "replay.dice_from_start": "Dice shown from the start (F)",
    "replay.dice_at_reveal": "Dice hidden until the cups are lifted (F)",
    "replay.stats": "Bluffs and calls",
    "replay.bids_held": "bids that held: {held} of {bids}",
    "replay.calls_right": "¡Dudo! right: {right}/{doubts} · ¡Calzo!: {calzo_right}/{calzos}",
    "replay.winner": "{name} wins",
    "app.title": "Dudo",
    "app.subtitle": "Liar's Dice among friends, no server: fair dice, a signed table",
    "app.no_display": (
        "dudo-p2p play needs a display (no DISPLAY or WAYLAND_DISPLAY); "
        "without a window use: dudo-p2p sim, dudo-p2p bot, dudo-p2p tournament"
    ),
    "face.1": "Ace",
    "face.2": "Two",
    "face.3": "Three",
    "face.4": "Four",
    "face.5": "Five",
    "face.6": "Six",
    "level.easy": "easy",
    "level.normal": "normal",
    "level.hard": "hard",
    "level.expert": "expert",
    "value.ceil_half": "half",
    "value.half_plus_one": "half + 1",
    "value.nothing": "nothing",
    "value.bidder_loses": "bidder loses",
    "value.bank": "bank a die",
    "value.forbidden": "forbidden",
    "common.yes": "yes",
    "common.no": "no",
    "common.back": "Back",
    "common.seconds": "{n} s",
    "common.dice_one": "1 die",
    "common.dice_many": "{n} dice",
    "lobby.tables": "Tables on the network",
    "lobby.no_tables": "No tables found on the network",
    "lobby.table_row": "{code}  ·  {players}/{seats} players",
    "lobby.other_language": "Español",
    "lobby.join": "Join",
    "lobby.join_address": "Join by address",
    "lobby.address_hint": "host:port",
    "lobby.bad_address": "Not a valid address: type host:port",
    "lobby.quick": "Play bots now",
    "lobby.play_bots": "Play against {n} bots",
    "lobby.hotseat": "Same device ({n} players)",
    "lobby.create": "Create a table",
    "lobby.create_button": "Create table and wait",
    "lobby.rules": "Rules (click to change)",
    "lobby.starting_dice": "Starting dice",
    "lobby.bots": "Bots in empty seats",
    "lobby.level": "Bot level",
    "lobby.timer": "Turn timer",
    "lobby.timer_off": "no limit",
    "lobby.page": "Page {page}/{pages}",
    "lobby.hint": "Click a rule to change it. F11 fullscreen. Esc quits.",
    "table.round": "Round {n}",
    "table.palifico": "PALIFICO!",
    "table.palifico_rule": "Palifico: aces are not wild, the face is locked",
    "table.palifico_rule_wild": "Palifico: the face is locked",
    "table.game_over": "Game over",
    "table.history_of": "Bids of round {n}",
    "table.round_outcome": "Round {n}: {what}",
    "table.round_voided": "Round {n} called off: the dice are dealt again",
    "table.you_are_out": "You are out of dice: watch how it ends",
    "table.seconds_left": "{n} s",
    "table.your_turn": "Your turn!",
    "table.turn_of": "{name}'s turn",
    "table.waiting": "Waiting for the table...",
    "table.you": "you",
    "table.you_name": "Player",
    "table.bot": "bot",
    "table.disconnected": "disconnected",
    "table.eliminated": "out",
    "table.look": "M or click: look at your dice",
    "table.hide": "M or click: cover them",
    "table.your_dice": "Your dice",
    "table.hidden_open": "Open palifico: you cannot see your own dice",
    "table.standing_bid": "Bid",
    "table.by": "by {name}",
    "table.no_bid": "No bid yet",
    "table.history": "Bids this round",
    "table.messages": "Table",
    "table.count": "Count",
    "table.face": "Face",
    "table.bid": "Bid",
    "table.dudo": "¡Dudo!",
    "table.calzo": "¡Calzo!",
    "table.matar": "Kill",
    "table.pasar": "Pass",
    "table.doubt_claim": "Doubt the pass!",
    "table.clockwise": "Clockwise",
    "table.counterclockwise": "Counter-clockwise",
    "table.choose": "Choose before opening:",
    "table.min_raise": "Too low: the least on {face} is {bid}",
    "table.no_raise_face": "You cannot bid on {face} now",
    "table.legal_bid": "Valid bid: {bid}",
    "table.not_your_turn": "Not your turn: wait",
    "table.face_named": "Face: {face}",
    "table.total_dice": "On the table: {n} dice",
    "table.bullets": "bullets {n}/6",
    "table.direction_help": (
        "You open: choose which way the turn goes for the whole game (clockwise: the player "
        "on your left is next). Your dice are dealt once you choose."
    ),
    "table.direction_help_round": (
        "You open: choose which way the turn goes this round (clockwise: the player on your "
        "left is next). Your dice are dealt once you choose."
    ),
    "table.expected_blind": "Not counting your dice (covered), expected on the table: {x} {face}",
    "table.history_more": "{n} more above: wheel or PgUp",
    "table.legend": ("Faces: 1\u00a0Ace · 2\u00a0Two · 3\u00a0Three · 4\u00a0Four · "
                     "5\u00a0Five · 6\u00a0Six"),
    "lobby.play_bot_one": "Play against 1 bot",
    "table.prob": "Chance the bid holds: {p}%",
    "table.expected": "With your dice, expected on the table: {x} {face}",
    "table.prob_hint": "P: probability",
    "table.keys": "Enter bid · D dudo · C calzo · M look · P probability · R rules · Esc menu",
    "table.timer": "{s} s",
    "table.illegal": "That move is not allowed now: {why}",
    "history.raise": "{name}: {bid}",
    "history.dudo": "{name}: ¡Dudo!",
    "history.calzo": "{name}: ¡Calzo!",
    "history.matar": "{name}: kill!",
    "history.pasar": "{name}: pass",
    "history.picado": "{name}: {bid}, picado!",
    "history.doubt_claim": "{name}: doubt!",
    "history.direction_cw": "{name}: clockwise",
    "history.direction_ccw": "{name}: counter-clockwise",
    "history.palifico": "{name}: palifico {mode}",
    "palifico.normal": "normal",
    "palifico.open": "open",
    "palifico.closed": "closed",
    "palifico.decline": "declined",
    "palifico.obligar": "forced!",
    "palifico.none": "no palifico",
    "reveal.title": "Cups up!",
    "reveal.kind.dudo": "{caller} doubted {target}: {bid}",
    "reveal.kind.calzo": "{caller} called exact on {bid}",
    "reveal.kind.matar": "{caller} killed {bid}",
    "reveal.kind.pasar": "{caller} doubted {target}'s pass",
    "reveal.kind.picado": "{caller} doubted {target}'s picado",
    "reveal.held": "The table holds {n}",
    "reveal.loses_one": "{name} loses a die",
    "reveal.loses_many": "{name} loses {n} dice",
    "reveal.gains": "{name} wins a die back",
    "reveal.banked": "{name} banks a spare die",
    "reveal.eliminated": "{name} is out of dice",
    "reveal.shot_fired": "Bang! {name}'s revolver fires",
    "reveal.shot_empty": "Click... {name}'s revolver does not fire",
    "reveal.continue": "Space or click to continue",
    "left.timeout": "{name} ran out of time and leaves the table",
    "left.removed": "The table removed {name}",
    "left.forfeit": "{name} forfeits the game",
    "left.eliminated": "{name} is out of dice",
    "left.quit": "{name} left the table",
    "left.other": "{name} left the table",
    "cheat.equivocation": "Cheat! {name} signed two different moves and is out",
    "cheat.bad_reveal": "Cheat! {name}'s dice do not match what was promised; out",
    "cheat.bad_signature": "Cheat! {name} sent a forged signature and is out",
    "cheat.other": "Cheat! {name} was caught and is out",
    "notice.unknown": "Table notice: {key}",
    "over.title": "{name} wins the game!",
    "over.you_win": "You won the game!",
    "over.play_again": "Play again",
    "over.lobby": "Back to the lobby",
    "over.quit": "Quit",
    "over.place": "#{n} {name}",
    "over.rounds": "{n} rounds",
    "menu.title": "Menu",
    "menu.resume": "Resume",
    "menu.rules": "Rules (R)",
    "menu.language": "Language: English",
    "menu.fullscreen": "Fullscreen (F11)",
    "menu.lobby": "Leave the table",
    "menu.quit": "Quit the game",
    "rules.title": "Table rules",
    "rules.house": "House rules",
    "rules.active": "Active variants",
    "rules.none": "None: house rules only",
    "rules.start_dice": "Each player starts with {n} dice.",
    "rules.close": "R or Esc to go back",
    "house.1": "Everyone shakes their cup and sees only their own dice. The opener bids first.",
    "house.2": "A bid says how many dice of a face are on the whole table, not in your hand.",
    "house.3": "Aces are wild: they count as the face bid (unless the bid is on aces).",
    "house.4": "Raise: a higher count with any face, or the same count with a higher face.",
    "house.5": "No opening on aces. To aces: half, rounded up. Aces to aces: one more.",
    "house.6": "From aces to another face: double plus one (three aces, then seven twos).",
    "house.7": "¡Dudo!: if the table holds fewer, the bidder loses a die; else the doubter.",
    "house.8": "¡Calzo!: exactly the count wins a die back; otherwise the caller loses one.",
    "house.9": "Palifico: down to one die, that round aces are not wild and the face is locked.",
    "house.10": "Whoever lost or won a die opens the next round. The last with dice wins.",
    "house.11": "The game's opener chooses the direction: clockwise (the player on their left "
                "is next) or counter-clockwise.",
    "handover.title": "Hand the device to {name}",
    "handover.hint": "Nobody else looks. {name}: press Space or click when ready.",
    "hotseat.player": "Player {n}",
    "lobby.names": "Names of the {n} players",
    "lobby.names_hint": "Empty: \"Player n\". Up to {n} letters. Tab: next.",
    "lobby.names_back": "Back",
    "lobby.names_start": "Start the game",
    "app.names_need_hotseat": "--names only works with --hotseat N (players on one device)",
    "app.too_many_names": "--names gives {names} names for {n} players; drop the extra ones",
    "error.session": "Could not open the table: {why}",
    "error.join_unavailable": "Joining by address is not available in this version yet.",
    "error.generic": "Something went wrong at the table: {why}",
}

CATALOGUE: Mapping[str, Mapping[str, str]] = {"es": ES, "en": EN}


def default_lang(environ: Mapping[str, str]) -> str:
    """Pick the language from the locale variables: English when they say so, else Spanish."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"):
        value = environ.get(var, "").lower()
        if value.startswith("en"):
            return "en"
        if value.startswith("es"):
            return "es"
    return "es"


class Tr:
    """A translator bound to one language; unknown keys show as the key itself, never crash."""

    def __init__(self, lang: str) -> None:
        if lang not in CATALOGUE:
            raise ValueError(f"unknown language {lang!r}; expected one of {LANGS}")
        self.lang = lang

    def __call__(self, key: str, /, **args: object) -> str:
        """The message ``key`` formatted with ``args``."""
        template = CATALOGUE[self.lang].get(key, key)
        try:
            return template.format(**args)
        except (KeyError, IndexError):
            return template

    def has(self, key: str) -> bool:
        """True when ``key`` is in the catalogue."""
        return key in CATALOGUE[self.lang]

    def dice(self, n: int) -> str:
        """"1 dado" / "3 dados" in the current language."""
        return self("common.dice_one") if n == 1 else self("common.dice_many", n=n)

    def face(self, face: int) -> str:
        """The name of a face (As, Tonto, ... / Ace, Two, ...)."""
        return self(FACE_KEYS[face - 1])
