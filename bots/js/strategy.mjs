// What the bot knows and how it picks: `View` folds the events the server shows its seat into
// what the strategy reads (where each unit stands, its Stress, who is out of the fight, who holds
// each objective); `choose` scores every option of a decision in one step and takes the best,
// ties broken by a seeded generator ("greedy"), or takes any at random ("random").

const isHidden = (v) => v !== null && typeof v === "object" && v.type === "Hidden";

export class View {
  constructor(seat) {
    this.seat = seat;
    this.units = new Map(); // id -> {side, x, y, stress, stressMax, out}
    this.objectives = new Map(); // id -> {x, y, points, holder}
  }

  apply(event) {
    const unit = this.units.get(event.unit);
    switch (event.type) {
      case "GameCreated":
        for (const u of event.units) {
          this.units.set(u.id, { side: u.side, x: u.x, y: u.y, stress: u.stress, stressMax: u.stress_max, out: !!u.dead || !!u.injury });
        }
        for (const o of event.objectives) this.objectives.set(o.id, { x: o.x, y: o.y, points: o.points, holder: "" });
        break;
      case "UnitMoved":
      case "UnitDeployed":
        if (unit) Object.assign(unit, { x: event.x, y: event.y }); // a Hidden position stays a Hidden
        break;
      case "StressLost":
        if (unit) unit.stress = Math.max(0, unit.stress - event.amount);
        break;
      case "StressRegained":
        if (unit) unit.stress = Math.min(unit.stressMax, unit.stress + event.amount);
        break;
      case "InjurySuffered":
      case "UnitDied":
        if (unit) unit.out = true; // out of the fight (a stunned unit may get up: ignored)
        break;
      case "ObjectiveSecured":
        if (this.objectives.has(event.objective)) this.objectives.get(event.objective).holder = event.side;
        break;
      default:
        break;
    }
  }

  placed(u) {
    return u && !u.out && Number.isInteger(u.x) && Number.isInteger(u.y);
  }

  // The cells worth walking to: enemies still fighting, and objectives this side does not hold.
  goals() {
    const goals = [];
    for (const u of this.units.values()) if (u.side !== this.seat && this.placed(u)) goals.push([u.x, u.y]);
    for (const o of this.objectives.values()) if (o.holder !== this.seat) goals.push([o.x, o.y]);
    return goals;
  }

  distanceToGoal(x, y) {
    const goals = this.goals();
    if (!goals.length) return 0;
    return Math.min(...goals.map(([gx, gy]) => Math.max(Math.abs(gx - x), Math.abs(gy - y))));
  }

  // How close to finished a unit is: 1 at no Stress left, 0 unhurt.
  worn(id) {
    const u = this.units.get(id);
    return u && u.stressMax ? 1 - u.stress / u.stressMax : 0;
  }
}

// A seeded generator (mulberry32): the same seed and the same game give the same choices.
export function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fixed values of the options that need no board: higher is better, 0 is "nothing gained"
// (ending the turn, keeping a roll, accepting). Options not named here score 1.
const VALUE = {
  exit: 120, capture: 95, escape: 90, free: 85, drag: 80, assassinate: 70, sabotage: 65, interact: 60, other: 55,
  pickup: 45, first_aid: 40, stand: 35, avoid: 30, create_advantage: 25, assist: 20, direct: 20, ready: 15, guard: 15,
  dodge: 12, aim: 12, reroll: 8, draw: 8, deploy: 2, sprint: 3, prepare: 3, boost: 5, counter: 5, rest: 2,
  end: 0, keep: 0, accept: 0, none: 0, hold: 0, pass: 0, stay: 0, prone: -5, retreat: -50,
};

// One option's score for the deciding seat, from the view.
export function score(view, option, decision) {
  const [name, ...args] = option;
  switch (name) {
    case "attack": // ["attack", target, weapon, lethal]
    case "fire": // ["fire", readied unit, weapon, lethal]: the target is the decision's unit
      return 100 + 15 * (args[2] ? 1 : 0) + 30 * view.worn(name === "fire" ? decision.unit : args[0]);
    case "move": // ["move", x, y]: towards the nearest enemy or objective not held
    case "sprint":
    case "dodge_move":
    case "fend":
      if (args.length < 2) return VALUE[name] ?? 1;
      return 20 - 2 * view.distanceToGoal(args[0], args[1]);
    case "bonus": // ["bonus", kind, ...]: a free Minor Action
      return score(view, args, decision) + 1;
    case "buy": // ["buy", n, pool]: Momentum is ours to spend; Threat feeds the opponent
      return args[0] === 0 ? 0 : args[1] === "momentum" ? 4 * args[0] : args[0] - 2.5;
    case "spend": // ["spend", n]: Momentum on Stress
      return args[0];
    case "recover":
      return 40 * view.worn(decision.unit);
    default:
      return VALUE[name] ?? 1;
  }
}

// The option to send: one of the decision's own options, returned as given.
export function choose(view, decision, { strategy = "greedy", random = Math.random } = {}) {
  const options = decision.options.filter((o) => !o.some(isHidden)); // (never in one's own decision)
  if (!options.length) throw new Error(`decision ${decision.id} offers no option this seat can send`);
  if (strategy === "random") return options[Math.floor(random() * options.length)];
  let best = [];
  let top = -Infinity;
  for (const option of options) {
    const s = score(view, option, decision);
    if (s > top) [best, top] = [[option], s];
    else if (s === top) best.push(option);
  }
  return best[Math.floor(random() * best.length)];
}
