"""The rule texts the table shows, in Spanish and English: the house table (``house.1`` ..
``house.11``, the rules screen) and one line per rule-set field (``variant.<field>``, the
rules screen's active variants and the lobby's rule rows). Part of the one catalogue
(:data:`~dudo_p2p.ui.i18n.CATALOGUE` holds them with the other words); the rules package keeps
only what the rules are (``VARIANTS``: each field's rule number and allowed values).
"""

from __future__ import annotations

HOUSE_RULE_KEYS = tuple(f"house.{i}" for i in range(1, 12))  # house.1 .. house.11
# the line explaining each RuleSet field (VARIANTS' keys), picked at run time
VARIANT_KEYS = {
    "starting_dice": "variant.starting_dice",
    "aces_conversion": "variant.aces_conversion",
    "calza": "variant.calza",
    "calza_threshold": "variant.calza_threshold",
    "calza_full_hand": "variant.calza_full_hand",
    "calza_anyone": "variant.calza_anyone",
    "calza_after_loss": "variant.calza_after_loss",
    "aces_wild": "variant.aces_wild",
    "palifico": "variant.palifico",
    "palifico_wilds": "variant.palifico_wilds",
    "palifico_face_change": "variant.palifico_face_change",
    "palifico_open_closed": "variant.palifico_open_closed",
    "palifico_optional": "variant.palifico_optional",
    "obligar_anytime": "variant.obligar_anytime",
    "direction_each_round": "variant.direction_each_round",
    "siciliana": "variant.siciliana",
    "matar": "variant.matar",
    "picado": "variant.picado",
    "pasar": "variant.pasar",
    "pasar_no_consecutive": "variant.pasar_no_consecutive",
    "juego_sucio": "variant.juego_sucio",
    "revolver": "variant.revolver",
}

ES: dict[str, str] = {
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
    "variant.starting_dice": "Dados iniciales por jugador (5, o 3 o 4).",
    "variant.aces_conversion": ("Pasar a ases: la mitad redondeada arriba, o «la mitad más uno» "
        "si es par."),
    "variant.calza": "Se puede cantar ¡Calzo! (apagado: Liar's Dice inglés).",
    "variant.calza_threshold": ("¡Calzo! solo si la apuesta llega a la mitad de los dados de la "
        "mesa."),
    "variant.calza_full_hand": ("Calzo acertado con todos los dados: nada, pierde quien apostó, "
        "un dado a favor, o prohibido."),
    "variant.calza_anyone": "Cualquiera salvo quien apostó puede cantar ¡Calzo! sin turno.",
    "variant.calza_after_loss": "Solo cantan ¡Calzo! quienes ya perdieron algún dado.",
    "variant.aces_wild": "Los ases son comodines (apagado: los ases son una pinta más).",
    "variant.palifico": "Ronda palifico cuando alguien queda por primera vez con un dado.",
    "variant.palifico_wilds": "En palifico los ases siguen siendo comodines.",
    "variant.palifico_face_change": ("En palifico, otro jugador con un dado puede cambiar la "
        "pinta subiendo la cantidad."),
    "variant.palifico_open_closed": ("Quien tiene un dado elige palifico abierto (ves los dados "
        "ajenos, no el tuyo) o cerrado."),
    "variant.palifico_optional": "Quien tiene un dado puede rechazar el palifico.",
    "variant.obligar_anytime": "Cada jugador puede «obligar» un palifico por partida al abrir.",
    "variant.direction_each_round": "Quien abre cada ronda elige el sentido.",
    "variant.siciliana": "Dudo a la siciliana: dudar la apuesta de apertura cuesta dos dados.",
    "variant.matar": ("Matar: si hay justo la cantidad apostada pierde quien apostó; si no, "
        "quien mató."),
    "variant.picado": "Picado: con dos ases, subir e invertir el sentido (una vez por ronda).",
    "variant.pasar": "Pasar con 5 dados todos distintos, todos iguales o full (una vez por ronda).",
    "variant.pasar_no_consecutive": "No se puede pasar justo después de otro paso.",
    "variant.juego_sucio": ("Juego sucio: se puede abrir en ases; esa ronda los ases son la "
        "pinta más baja."),
    "variant.revolver": ("Revólver: quien pierde un desafío carga una bala y dispara en vez de "
        "perder un dado."),
}

EN: dict[str, str] = {
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
    "variant.starting_dice": "Dice each player starts with (5, or 3 or 4).",
    "variant.aces_conversion": ("Bidding aces: half rounded up, or 'half plus one' for an even "
        "count."),
    "variant.calza": "¡Calzo! (exact call) is allowed (off: English Liar's Dice).",
    "variant.calza_threshold": ("¡Calzo! only when the bid's count is at least half the dice on "
        "the table."),
    "variant.calza_full_hand": ("Right ¡Calzo! with a full hand: nothing, the bidder loses a "
        "die, bank a die, or not allowed."),
    "variant.calza_anyone": "Anyone but the bidder may call ¡Calzo! out of turn.",
    "variant.calza_after_loss": "Only players who have lost a die this game may call ¡Calzo!.",
    "variant.aces_wild": "Aces are wild (off: aces are an ordinary face).",
    "variant.palifico": "A palifico round when a player first drops to one die.",
    "variant.palifico_wilds": "Aces stay wild in a palifico round.",
    "variant.palifico_face_change": ("In palifico, another one-die player may change the face "
        "with a higher count."),
    "variant.palifico_open_closed": ("The one-die player picks open palifico (see others' dice, "
        "not your own) or closed."),
    "variant.palifico_optional": "The one-die player may decline the palifico round.",
    "variant.obligar_anytime": ("Each player may force one palifico round per game when opening "
        "a round."),
    "variant.direction_each_round": "Each round's opener chooses the direction of play.",
    "variant.siciliana": ("A la siciliana: a ¡Dudo! on a round's opening bid costs the loser two "
        "dice."),
    "variant.matar": ("Kill: exactly the count on the table, the bidder loses a die; else the "
        "killer does."),
    "variant.picado": ("Picado: claiming two aces, raise and reverse the direction (once per "
        "round)."),
    "variant.pasar": ("Pass holding 5 dice all different, all equal or a full house (once per "
        "round)."),
    "variant.pasar_no_consecutive": "No pass right after another pass.",
    "variant.juego_sucio": ("Dirty game: the opener may bid aces; that round aces are the lowest "
        "plain face."),
    "variant.revolver": ("Revolver: a lost challenge adds a bullet and fires once instead of "
        "costing a die."),
}
