"""BAO BEI for game-playing frameworks: one player at a time, moves in small steps, explicit chance
(`sequential`), as OpenSpiel's game `python_baobei` (`openspiel`, the `openspiel` extra) and as a
PettingZoo AEC environment (`pettingzoo`, the `pettingzoo` extra); `bots` measures bots through OpenSpiel."""
