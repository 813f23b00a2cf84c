/**
 * A seeded generator of long, multi-session conversations between two speakers, with questions
 * whose evidence turns are labelled. No network, no downloads: the same seed gives the same
 * dataset byte for byte.
 *
 * Each conversation has 12–28 dated sessions (days to weeks apart, a year or two in all) of
 * 10–30 turns. Most turns are small talk that keeps reusing the words people actually repeat
 * (the speakers' names, "work", "family", "weekend", "kids", "busy"); a few state facts about
 * a speaker in the way people mention them in passing, seldom with the words a later question
 * would use. Question categories:
 *
 * - single-hop: one evidence turn, paraphrased; the question shares a word or two with it.
 * - temporal: "when did …"; the evidence turn says "yesterday", "last Saturday", "two weeks
 *   ago" and the session's date anchors it.
 * - updated-current / updated-previous: a fact that changed (city, sport, employer); one
 *   question for the value now (evidence: the later turn), one for the value before (evidence:
 *   the earlier turn).
 * - multi-hop: two evidence turns, both needed (each speaker's pet; a trip planned then
 *   reported; a sibling introduced, then their baby).
 * - old-common-words: evidence from the first quarter of the sessions that shares only common
 *   words with the question (the speaker's name, "work", "family", "weekend"): "What does Maya
 *   do for work?" against "Maya: Another night shift in the ER tomorrow …".
 */
import { seededRandom, shuffledWith } from "../../support/seeded-random.ts";

export interface Turn {
  id: string;
  conversation: number;
  session: number;
  speaker: string;
  text: string;
  /** Session date plus a minute per turn, ISO-8601. */
  at: string;
  /** The session's date, ISO-8601. */
  sessionDate: string;
}

/** A turn as Cairn stores it (and BM25 indexes it): "Speaker: text". */
export const turnText = (turn: Pick<Turn, "speaker" | "text">) => `${turn.speaker}: ${turn.text}`;

export type Category =
  | "single-hop"
  | "temporal"
  | "updated-current"
  | "updated-previous"
  | "multi-hop"
  | "old-common-words";

export const categories: Category[] = [
  "single-hop",
  "temporal",
  "updated-current",
  "updated-previous",
  "multi-hop",
  "old-common-words",
];

export interface Question {
  conversation: number;
  /** One of `categories` here; a public dataset has its own (locomo.ts). */
  category: string;
  question: string;
  answer: string;
  evidence: string[];
}

export interface Conversation {
  index: number;
  speakers: [string, string];
  turns: Turn[];
  questions: Question[];
}

type Random = () => number;

const names = `Maya Caroline Melanie Jon Gina Tariq Priya Lukas Sofia Daniel Amara Bruno Chloe Dmitri Elif
Felix Grace Hiro Ines Jonas Kofi Lena Mateo Nadia Omar Rosa Sven Uma Viktor Wei Ximena Yusuf Zoe
Joanna Nate Audrey Andrew Evan Sam Calvin Deborah James John Tim Hannah Leo Marta Noor Pablo Rania`
  .split(/\s+/)
  .filter((name) => name !== "");

const partnerNames = `Ravi Ana Tom Julia Marco Leila Chris Ingrid Paulo Mei Oscar Helen Kwame Sara Dev Lucy
Ahmed Clara Emil Fatima`
  .split(/\s+/)
  .filter((name) => name !== "");

const sisterNames = ["Ana", "Julia", "Leila", "Ingrid", "Mei", "Helen", "Sara", "Lucy", "Clara", "Fatima"];
const brotherNames = ["Ravi", "Tom", "Marco", "Chris", "Paulo", "Oscar", "Kwame", "Dev", "Ahmed", "Emil"];

const kidNames = `Sam Leo Ivy Mia Noah Ella Finn Ava Theo Lily Max Zara Eli Nora Kai Rosie Jack Iris Ben Luna`
  .split(/\s+/)
  .filter((name) => name !== "");

interface Job {
  answer: string;
  says: string[];
}

// Said in passing, the way people talk about their day; none uses "work" or "job".
const jobs: Job[] = [
  {
    answer: "kindergarten teacher",
    says: [
      "I've been teaching kindergarten for six years now, the little ones keep me on my toes",
      "Twenty-two five-year-olds and one glue stick incident later, I survived Monday",
    ],
  },
  {
    answer: "ER nurse",
    says: [
      "Another night shift in the ER tomorrow, twelve hours of triage, wish me luck",
      "We had three ambulances arrive at once last night, the triage desk was chaos",
    ],
  },
  {
    answer: "electrician",
    says: [
      "Finished rewiring a whole kitchen today, my hands are wrecked",
      "Spent all day in a crawlspace pulling cable for a new breaker panel",
    ],
  },
  {
    answer: "lawyer",
    says: [
      "Court ran late again, my client's hearing got pushed to Thursday",
      "I have a deposition at nine and a brief due at five, pray for me",
    ],
  },
  {
    answer: "dentist",
    says: [
      "Did three root canals back to back this morning, my patients were brave",
      "Half my patients forget to floss and then act surprised at their cleanings",
    ],
  },
  {
    answer: "baker",
    says: [
      "Baked four hundred croissants before sunrise, the bakery opens at six",
      "The sourdough starter at the shop is older than my niece, we feed it twice a day",
    ],
  },
  {
    answer: "airline pilot",
    says: [
      "Landed in Denver at 2am, the cockpit coffee is terrible",
      "Three legs today, Madrid, Lyon, then home, and a crosswind landing to finish",
    ],
  },
  {
    answer: "journalist",
    says: [
      "Our newsroom is chasing a story about the city budget, deadline at nine",
      "My editor cut my article down to four hundred words, all the good quotes gone",
    ],
  },
  {
    answer: "software engineer",
    says: [
      "Spent the whole day debugging the payment service, our deploy slipped again",
      "Code review took all afternoon, someone pushed a thousand lines with no tests",
    ],
  },
  {
    answer: "farmer",
    says: [
      "Two calves were born overnight, I barely slept",
      "Got the barley in just before the storm, the tractor held up for once",
    ],
  },
  {
    answer: "veterinarian",
    says: [
      "Five puppies in for vaccinations before lunch, then a very grumpy parrot",
      "I stitched up a labrador that ate half a fence today, he's going to be fine",
    ],
  },
  {
    answer: "architect",
    says: [
      "Just wrapped up the floor plans for a library renovation, the client loved the atrium",
      "The planning office rejected my facade drawings again, back to the drafting table",
    ],
  },
  {
    answer: "librarian",
    says: [
      "Reshelved the entire history section and ran storytime for the toddlers",
      "Someone returned a book that was due in 1998, I waived the fine out of respect",
    ],
  },
  {
    answer: "bus driver",
    says: [
      "Drove the 42 route twice today, the regulars brought me cookies",
      "A passenger left a live lobster on my bus this morning, no idea how",
    ],
  },
  {
    answer: "high school English teacher",
    says: [
      "I've got twenty-eight essays on Macbeth to grade before Monday",
      "My tenth graders finally got into The Great Gatsby, small victories",
    ],
  },
  {
    answer: "hairdresser",
    says: [
      "Did three haircuts and a full colour before noon, the salon was packed",
      "A bride wanted an updo with forty pins, my fingers are numb",
    ],
  },
  {
    answer: "firefighter",
    says: [
      "Our crew put out a two-alarm blaze downtown last night, everyone's safe",
      "Spent the shift checking hydrants and hoses, and cooked chili for the station",
    ],
  },
  {
    answer: "accountant",
    says: [
      "Balanced the books for four clients today, tax season is brutal",
      "Reconciled a whole year of receipts for a restaurant, the spreadsheets haunt me",
    ],
  },
  {
    answer: "physiotherapist",
    says: [
      "Had six knee rehab patients today, one finally walked without the brace",
      "Taught a marathoner how to tape her ankle properly, she'll be fine for race day",
    ],
  },
  {
    answer: "chef",
    says: [
      "Ninety covers tonight and the walk-in fridge died mid-service",
      "I'm putting a new lamb dish on the restaurant menu, still tweaking the sauce",
    ],
  },
];

const hometowns = [
  "a fishing village outside Cork",
  "Tromsø",
  "a farm near Saskatoon",
  "Valparaíso",
  "Nairobi",
  "a small town in Kerala",
  "Kraków",
  "Busan",
  "Tucson",
  "Marseille",
  "Halifax",
  "Izmir",
  "Bologna",
  "Guadalajara",
  "Dundee",
  "Cebu",
  "Adelaide",
  "Thessaloniki",
];

const hometownSays = [
  (place: string) => `I was born and raised in ${place}, we had snow until May some years`,
  (place: string) =>
    `Back in ${place} my grandmother ran the corner shop, I spent every summer behind the counter`,
  (place: string) => `Growing up in ${place} we walked to school along the harbour every morning`,
  (place: string) => `My whole childhood was in ${place}, I still miss the smell of the market there`,
];

const hometownQuestions = [
  (name: string) => `Where is ${name} from?`,
  (name: string) => `Where did ${name} grow up?`,
];

const hobbies = [
  {
    answer: "rock climbing",
    says: "Saturdays mean the climbing gym for me, I finally sent a V5 last time",
  },
  { answer: "kayaking", says: "Sundays I'm out on the lake with my kayak from dawn until lunch" },
  { answer: "pottery", says: "I'm at the pottery studio every Saturday, my bowls are getting less lopsided" },
  {
    answer: "birdwatching",
    says: "Spotted a kingfisher at the marsh on Sunday morning, my binoculars are my best purchase",
  },
  { answer: "baking bread", says: "Every Saturday I bake two loaves of rye, the whole street smells of it" },
  {
    answer: "trail running",
    says: "Did my usual Sunday trail loop, fourteen kilometres of mud and I loved it",
  },
  {
    answer: "chess",
    says: "Saturday afternoons are chess at the café, I beat the old regular for the first time",
  },
  {
    answer: "gardening",
    says: "Spent Saturday on my knees in the vegetable patch, the tomatoes are finally red",
  },
  { answer: "painting", says: "I set up my easel by the river on Sundays, watercolours mostly, landscapes" },
  { answer: "cycling", says: "Sunday rides with the club are sixty kilometres now, my legs are jelly" },
  { answer: "fishing", says: "Up at five on Saturdays to fish the river, caught a big trout last time" },
  { answer: "board games", says: "Saturday nights we host a board game group, six of us around the table" },
];

const hobbyQuestions = [
  (name: string) => `What does ${name} like to do on weekends?`,
  (name: string) => `What does ${name} do on the weekend for fun?`,
];

const familyQuestions = [
  (name: string) => `Who is in ${name}'s family?`,
  (name: string) => `What does ${name}'s family look like?`,
];

const jobQuestions = [
  (name: string) => `What does ${name} do for work?`,
  (name: string) => `What is ${name}'s line of work?`,
];

const pets = [
  { kind: "dog", names: ["Biscuit", "Pepper", "Rufus", "Luna", "Bruno", "Maple"] },
  { kind: "cat", names: ["Miso", "Oliver", "Pixel", "Clementine", "Smokey", "Tofu"] },
  { kind: "parrot", names: ["Kiwi", "Captain", "Mango"] },
  { kind: "rabbit", names: ["Clover", "Thumper", "Hazel"] },
  { kind: "tortoise", names: ["Sheldon", "Gus", "Speedy"] },
];

const petSays = [
  (pet: string, kind: string) => `${pet} knocked the bin over again this morning, that ${kind} is a menace`,
  (pet: string, kind: string) => `Took ${pet} to the vet for a checkup, the ${kind} behaved like an angel`,
  (pet: string, _kind: string) => `${pet} fell asleep on my laptop while I was typing, I can't be mad`,
];

const instruments = ["cello", "piano", "violin", "guitar", "saxophone", "drums", "ukulele", "trumpet"];
const instrumentSays = [
  (thing: string) => `Started ${thing} lessons a month ago and my fingers are sore`,
  (thing: string) => `My neighbours must hate me, I've been practising ${thing} scales every night`,
];
const instrumentQuestions = [
  (name: string) => `What instrument is ${name} learning to play?`,
  (name: string) => `Which lessons has ${name} started taking?`,
];

const cuisines = [
  { answer: "Ethiopian", dish: "injera with lentils" },
  { answer: "Thai", dish: "green curry" },
  { answer: "Mexican", dish: "tacos al pastor" },
  { answer: "Japanese", dish: "ramen" },
  { answer: "Lebanese", dish: "mezze and fresh flatbread" },
  { answer: "Italian", dish: "cacio e pepe" },
  { answer: "Korean", dish: "bibimbap" },
  { answer: "Georgian", dish: "khachapuri" },
];
const cuisineSays = [
  (c: { answer: string; dish: string }) =>
    `Honestly ${c.answer} is my favourite, I could eat ${c.dish} every single day`,
  (c: { answer: string; dish: string }) =>
    `Nothing beats ${c.dish}, ${c.answer} cooking is the best on earth`,
];
const cuisineQuestions = [
  (name: string) => `What is ${name}'s favourite kind of food?`,
  (name: string) => `Which cuisine does ${name} love most?`,
];

const books = [
  "The Overstory",
  "Piranesi",
  "A Gentleman in Moscow",
  "The Remains of the Day",
  "Station Eleven",
  "Pachinko",
  "The Name of the Wind",
  "Circe",
];
const bookSays = [
  (title: string) => `You have to read ${title}, I couldn't put it down`,
  (title: string) => `Just finished ${title} at 2am, I'm an emotional wreck`,
];
const bookQuestions = [
  (name: string) => `Which novel did ${name} recommend?`,
  (name: string) => `What book did ${name} stay up late finishing?`,
];

const allergens = ["peanuts", "shellfish", "cats", "pollen", "penicillin", "kiwi fruit"];
const allergySays = [
  (thing: string) => `I can't go near ${thing}, I break out in hives within minutes`,
  (thing: string) => `Ended up at urgent care once because of ${thing}, I carry an EpiPen now`,
];
const allergyQuestions = [
  (name: string) => `What is ${name} allergic to?`,
  (name: string) => `What gives ${name} a bad reaction?`,
];

interface Event {
  says: (when: string, partner: string) => string;
  question: (name: string) => string;
}

const events: Event[] = [
  {
    says: (when) => `I ran my first half marathon ${when}! My legs are still shaking`,
    question: (name) => `When did ${name} run a half marathon?`,
  },
  {
    says: (when) => `We adopted a rescue kitten ${when}, she's been hiding under the sofa since`,
    question: (name) => `When did ${name} adopt a kitten?`,
  },
  {
    says: (when) => `They made me team lead ${when}, I still can't believe it`,
    question: (name) => `When did ${name} get promoted?`,
  },
  {
    says: (when) => `Saw Coldplay live ${when}, I screamed myself hoarse`,
    question: (name) => `When did ${name} go to the Coldplay concert?`,
  },
  {
    says: (when) => `I slipped on the ice ${when} and broke my wrist, typing one-handed now`,
    question: (name) => `When did ${name} break a wrist?`,
  },
  {
    says: (when, partner) => `${partner} proposed ${when} on the pier, I said yes!`,
    question: (name) => `When did ${name} get engaged?`,
  },
  {
    says: (when) => `We repainted the whole living room ${when}, it's sage green now`,
    question: (name) => `When did ${name} paint the living room?`,
  },
  {
    says: (when) => `Went camping at Lake Tahoe ${when}, the stars were unreal`,
    question: (name) => `When did ${name} go camping at Lake Tahoe?`,
  },
  {
    says: (when) => `Passed my driving test ${when}, second try!`,
    question: (name) => `When did ${name} pass the driving test?`,
  },
  {
    says: (when) => `Gave a talk at the regional conference ${when}, my voice only shook a little`,
    question: (name) => `When did ${name} speak at a conference?`,
  },
  {
    says: (when) => `Volunteered at the food bank ${when}, we packed six hundred boxes`,
    question: (name) => `When did ${name} volunteer at the food bank?`,
  },
  {
    says: (when) => `My grandmother turned ninety ${when}, we threw her a huge party`,
    question: (name) => `When was ${name}'s grandmother's 90th birthday party?`,
  },
  {
    says: (when) => `I finally finished the quilt ${when}, it took me two years`,
    question: (name) => `When did ${name} finish making the quilt?`,
  },
  {
    says: (when) => `Someone rear-ended us at a red light ${when}, nobody hurt but the car's a mess`,
    question: (name) => `When was ${name} in a car accident?`,
  },
];

const relativeDays: Array<{ phrase: string; days: number }> = [
  { phrase: "yesterday", days: 1 },
  { phrase: "this morning", days: 0 },
  { phrase: "last Saturday", days: 4 },
  { phrase: "last weekend", days: 6 },
  { phrase: "two weeks ago", days: 14 },
  { phrase: "last month", days: 30 },
  { phrase: "on Friday", days: 3 },
];

const cities = [
  "Porto",
  "Lisbon",
  "Denver",
  "Austin",
  "Leeds",
  "Glasgow",
  "Utrecht",
  "Lyon",
  "Seattle",
  "Vancouver",
  "Melbourne",
  "Montreal",
  "Valencia",
  "Gothenburg",
  "Boston",
  "Hamburg",
];
const cityBefore = [
  (city: string) => `Our flat in ${city} is tiny but the view over the river makes up for it`,
  (city: string) => `Rent in ${city} went up again, but I love our neighbourhood too much to leave`,
];
const cityAfter = [
  (city: string) => `The movers finally came, we're officially ${city} residents now!`,
  (city: string) => `Unpacked the last box in our new place in ${city}, the kitchen is twice the size`,
];

const sports = ["yoga", "swimming", "boxing", "tennis", "pilates", "rowing", "spinning classes", "karate"];
const sportBefore = [
  (sport: string) => `${capitalise(sport)} three times a week keeps my back happy`,
  (sport: string) => `Signed up for ${sport} at the leisure centre, the instructor is tough`,
];
const sportAfter = [
  (sport: string) => `I've switched to ${sport} now, it's so much more satisfying`,
  (sport: string) => `Cancelled my old membership, it's all ${sport} for me these days`,
];

const companies = [
  "Northwind Logistics",
  "Bluebell Health",
  "Harbor & Finch",
  "Quarry Labs",
  "Summit Insurance",
  "Greenleaf Foods",
  "Orion Media",
  "Pinecrest Schools",
  "Atlas Engineering",
  "Riverside Clinic",
  "Copperline Studio",
  "Meridian Bank",
];
const employerBefore = [
  (company: string) => `${company} finally gave me a parking space, only took them three years`,
  (company: string) => `The ${company} holiday party was fun, our director did karaoke`,
];
const employerAfter = [
  (company: string) => `First week at ${company} done, the new office has a rooftop garden`,
  (company: string) => `Handed in my badge and started at ${company} on Monday, new chapter!`,
];

const countries = [
  { country: "Japan", city: "Kyoto", sight: "the temples at dawn were unreal" },
  { country: "Peru", city: "Cusco", sight: "we hiked to Machu Picchu and I cried at the top" },
  { country: "Iceland", city: "Reykjavik", sight: "we saw the northern lights from a hot spring" },
  { country: "Morocco", city: "Marrakech", sight: "I bought way too many rugs in the souk" },
  { country: "Vietnam", city: "Hoi An", sight: "the lanterns on the river at night were magical" },
  { country: "Norway", city: "Bergen", sight: "the fjord cruise was the best day of my life" },
  { country: "Greece", city: "Santorini", sight: "the sunset in Oia lived up to the hype" },
  { country: "New Zealand", city: "Queenstown", sight: "I did a bungee jump, never again" },
];

const babyNames = ["Tomas", "Elena", "Arlo", "Maisie", "Rafael", "Junie", "Otto", "Willa"];

// Small talk: the same few words over and over, as in real chat logs.
const openers = [
  "Hey {other}! How was your weekend?",
  "Hi {other}, long time no chat! How's the family?",
  "Morning {other}! Busy week at work?",
  "Hey {other}, how have you been?",
  "{other}! I was just thinking about you. How's everything?",
  "Hi {other}, hope work isn't too crazy this week",
  "Hey! Sorry I went quiet, {other}, family stuff all week",
  "Good evening {other}, got a minute to catch up?",
];
const replies = [
  "Haha, that's amazing!",
  "Oh no, I'm so sorry to hear that.",
  "Wow, {other}, that's huge!",
  "That sounds lovely, honestly.",
  "Tell me more!",
  "Congrats, {other}!!",
  "Ha, I know exactly what you mean.",
  "That's so you, {other}.",
  "Aww, that made my day.",
  "Ugh, that sounds exhausting.",
  "No way! Really?",
  "Good for you, seriously.",
  "I'm proud of you, {other}.",
  "Yeah, same here to be honest.",
  "Fingers crossed for you!",
  "Oof. Hang in there.",
];
const fillerParts = {
  start: [
    "Work has been",
    "The family has been",
    "This week has been",
    "The weekend was",
    "Things at work are",
    "Honestly the kids have been",
    "Family dinner was",
    "Our weekend plans got",
    "My week at work was",
    "Life with the family is",
    "The last few days were",
    "Work this month is",
  ],
  middle: [
    "so busy",
    "a bit much",
    "pretty quiet",
    "chaotic",
    "really nice",
    "all over the place",
    "better than expected",
    "exhausting",
    "surprisingly fun",
    "kind of a blur",
    "non-stop",
    "calmer lately",
  ],
  end: [
    ", I need a proper weekend off.",
    ", but the family is doing well.",
    ", how about you, {other}?",
    ", I barely had time to eat.",
    ", we mostly stayed home.",
    ", I can't complain really.",
    ", work never really stops though.",
    ", the weekend flew by.",
    ".",
    ", family first as always.",
    ", and the weather didn't help.",
    ", I keep telling myself it's temporary.",
  ],
};
const chatter = [
  "We should catch up properly this weekend, {other}.",
  "Give my love to the family!",
  "Any plans for the weekend?",
  "Just a quiet weekend at home for us.",
  "Family is everything, right?",
  "I need a holiday from work.",
  "How's work going, {other}?",
  "Work is fine, same old same old.",
  "The kids have a school play this week, wish me luck.",
  "We had a big family lunch on Sunday.",
  "Talk soon, {other}! Take care.",
  "Gotta run, work call in five minutes.",
  "Thanks for listening, {other}, it means a lot.",
  "Let's get coffee when things calm down at work.",
  "My mum called again about the family reunion.",
  "The weekend went by way too fast.",
  "Did you watch anything good this week?",
  "I've been sleeping terribly, too much on my mind with work.",
  "Weather's been awful, we stayed in all weekend.",
  "My neighbour's dog barked all night again.",
  "I'm trying to cook more at home, work lunches are expensive.",
  "We finally booked the family photos for next month.",
  "Can't believe it's already {month}.",
  "{other}, you always know what to say.",
  "Busy day tomorrow, early start at work.",
  "The family group chat is out of control lately.",
  "I keep meaning to call my brother, work keeps getting in the way.",
  "Spent the whole weekend doing laundry and errands.",
  "We might visit family over the holidays.",
  "Honestly, I'm just happy it's Friday.",
  "Had friends over for dinner, it was a late night.",
  "Work drinks were fun, though I'm tired today.",
  "My phone died in the middle of the day, total chaos.",
  "Remember that café we went to? It closed down.",
  "I should really get back into a routine.",
  "The kids want a pet, I keep saying maybe.",
  "Traffic was a nightmare this morning.",
  "It's been a while since we had a proper chat, {other}.",
  "Family comes first, work can wait.",
  "I'm thinking about taking a day off next week.",
];
const monthNames = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface PlannedFact {
  speaker: 0 | 1;
  text: string;
  /** Allowed session range, inclusive. */
  from: number;
  to: number;
  /** Set once placed. */
  id?: string;
  sessionDate?: Date;
}

interface PlannedQuestion {
  category: Category;
  question: string;
  answer: string | ((facts: PlannedFact[]) => string);
  evidence: PlannedFact[];
}

function makePicker(random: Random) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const shuffled = <T>(items: readonly T[]): T[] => shuffledWith(items, random);
  return { pick, between, shuffled };
}

const day = 86_400_000;

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function generateConversation(index: number, random: Random): Conversation {
  const { pick, between, shuffled } = makePicker(random);
  const [nameA, nameB] = shuffled(names);
  const speakers: [string, string] = [nameA, nameB];
  const sessionCount = between(12, 28);
  const early = Math.max(1, Math.floor(sessionCount / 4)) - 1;
  const last = sessionCount - 1;

  const facts: PlannedFact[] = [];
  const planned: PlannedQuestion[] = [];
  const fact = (speaker: 0 | 1, text: string, from: number, to: number) => {
    const entry: PlannedFact = { speaker, text, from, to };
    facts.push(entry);
    return entry;
  };

  const jobPool = shuffled(jobs);
  const townPool = shuffled(hometowns);
  const hobbyPool = shuffled(hobbies);
  const petPool = shuffled(pets);
  const instrumentPool = shuffled(instruments);
  const cuisinePool = shuffled(cuisines);
  const bookPool = shuffled(books);
  const allergenPool = shuffled(allergens);
  const eventPool = shuffled(events);
  const cityPool = shuffled(cities);
  const sportPool = shuffled(sports);
  const companyPool = shuffled(companies);
  const countryPool = shuffled(countries);
  const partnerPool = shuffled(partnerNames);
  const kidPool = shuffled(kidNames);
  const petEvidence: PlannedFact[] = [];
  const petKinds: string[] = [];

  for (const who of [0, 1] as const) {
    const name = speakers[who];

    // Old evidence sharing only common words with its question.
    const job = jobPool[who];
    planned.push({
      category: "old-common-words",
      question: pick(jobQuestions)(name),
      answer: job.answer,
      evidence: [fact(who, pick(job.says), 0, early)],
    });
    const town = townPool[who];
    planned.push({
      category: "old-common-words",
      question: pick(hometownQuestions)(name),
      answer: town,
      evidence: [fact(who, pick(hometownSays)(town), 0, early)],
    });
    const hobby = hobbyPool[who];
    planned.push({
      category: "old-common-words",
      question: pick(hobbyQuestions)(name),
      answer: hobby.answer,
      evidence: [fact(who, hobby.says, 0, early)],
    });
    const partner = partnerPool[who];
    const kidCount = between(0, 3);
    const kids = kidPool.slice(who * 3, who * 3 + kidCount);
    const household =
      kidCount === 0
        ? `${partner} and I have been married nine years, no little ones, just us and the garden`
        : `${partner} and I have ${["", "one little one", "two little ones", "three little ones"][kidCount]} at home now: ${kids.join(" and ")}`;
    planned.push({
      category: "old-common-words",
      question: pick(familyQuestions)(name),
      answer: kidCount === 0 ? `married to ${partner}, no children` : `${partner} and ${kids.join(", ")}`,
      evidence: [fact(who, household, 0, early)],
    });

    // Single-hop: four of six attributes asked, the rest stated but never asked.
    const pet = petPool[who];
    const petName = pick(pet.names);
    const petFact = fact(who, pick(petSays)(petName, pet.kind), 0, Math.floor(last * 0.7));
    petEvidence.push(petFact);
    petKinds.push(`${pet.kind} ${petName}`);
    const instrument = instrumentPool[who];
    const cuisine = cuisinePool[who];
    const book = bookPool[who];
    const allergen = allergenPool[who];
    const singles: PlannedQuestion[] = [
      {
        category: "single-hop",
        question: pick([`What is the name of ${name}'s ${pet.kind}?`, `What kind of pet does ${name} have?`]),
        answer: `${pet.kind} ${petName}`,
        evidence: [petFact],
      },
      {
        category: "single-hop",
        question: pick(instrumentQuestions)(name),
        answer: instrument,
        evidence: [fact(who, pick(instrumentSays)(instrument), 0, last)],
      },
      {
        category: "single-hop",
        question: pick(cuisineQuestions)(name),
        answer: cuisine.answer,
        evidence: [fact(who, pick(cuisineSays)(cuisine), 0, last)],
      },
      {
        category: "single-hop",
        question: pick(bookQuestions)(name),
        answer: book,
        evidence: [fact(who, pick(bookSays)(book), 0, last)],
      },
      {
        category: "single-hop",
        question: pick(allergyQuestions)(name),
        answer: allergen,
        evidence: [fact(who, pick(allergySays)(allergen), 0, last)],
      },
    ];
    planned.push(...shuffled(singles).slice(0, 4));

    // A sibling, then (multi-hop) the sibling's baby.
    const sibling = pick(["sister", "brother"]);
    const siblingName = pick(sibling === "sister" ? sisterNames : brotherNames);
    const siblingFact = fact(
      who,
      pick([
        `My ${sibling} ${siblingName} is coming to stay with us for a week`,
        `${siblingName}, my little ${sibling}, just got a place two streets away from me`,
      ]),
      0,
      Math.floor(last / 2),
    );
    planned.push({
      category: "single-hop",
      question: `What is the name of ${name}'s ${sibling}?`,
      answer: siblingName,
      evidence: [siblingFact],
    });
    const baby = pick(babyNames);
    const babyFact = fact(
      who,
      `${siblingName} is a ${sibling === "sister" ? "mum" : "dad"} now! Little ${baby} arrived last night, seven pounds, everyone is healthy`,
      Math.floor(last / 2) + 1,
      last,
    );
    planned.push({
      category: "multi-hop",
      question: `What did ${name}'s ${sibling} name the baby?`,
      answer: baby,
      evidence: [siblingFact, babyFact],
    });

    // Multi-hop: a trip planned, then reported without naming the country.
    const trip = countryPool[who];
    const plan = fact(
      who,
      `Thinking about ${trip.country} next spring, I've been saving up for ages`,
      0,
      Math.floor(last / 2),
    );
    const report = fact(
      who,
      `Just got back from ${trip.city}! ${capitalise(trip.sight)}`,
      Math.floor(last / 2) + 2,
      last,
    );
    planned.push({
      category: "multi-hop",
      question: `Did ${name} take the trip to ${trip.country}, and what was the highlight?`,
      answer: `yes, ${trip.city}: ${trip.sight}`,
      evidence: [plan, report],
    });

    // Temporal: three dated events.
    for (const event of eventPool.slice(who * 3, who * 3 + 3)) {
      const when = pick(relativeDays);
      const evidence = fact(who, event.says(when.phrase, partner), 0, last);
      planned.push({
        category: "temporal",
        question: event.question(name),
        answer: (placed) => isoDay(new Date((placed[0].sessionDate as Date).getTime() - when.days * day)),
        evidence: [evidence],
      });
    }

    // Updated facts: two of three change during the conversation.
    const updates = shuffled(["city", "sport", "employer"]).slice(0, 2);
    const beforeRange = [0, Math.floor(last * 0.4)] as const;
    const afterRange = [Math.ceil(last * 0.6), last] as const;
    for (const kind of updates) {
      if (kind === "city") {
        const [before, after] = [cityPool[who * 2], cityPool[who * 2 + 1]];
        const old = fact(who, pick(cityBefore)(before), ...beforeRange);
        const now = fact(who, pick(cityAfter)(after), ...afterRange);
        planned.push({
          category: "updated-current",
          question: pick([`Where does ${name} live now?`, `Which city is ${name} living in these days?`]),
          answer: after,
          evidence: [now],
        });
        planned.push({
          category: "updated-previous",
          question: `Where did ${name} live before moving to ${after}?`,
          answer: before,
          evidence: [old],
        });
      } else if (kind === "sport") {
        const [before, after] = [sportPool[who * 2], sportPool[who * 2 + 1]];
        const old = fact(who, pick(sportBefore)(before), ...beforeRange);
        const now = fact(who, pick(sportAfter)(after), ...afterRange);
        planned.push({
          category: "updated-current",
          question: pick([`What exercise does ${name} do now?`, `What sport is ${name} into these days?`]),
          answer: after,
          evidence: [now],
        });
        planned.push({
          category: "updated-previous",
          question: `What exercise did ${name} do before switching to ${after}?`,
          answer: before,
          evidence: [old],
        });
      } else {
        const [before, after] = [companyPool[who * 2], companyPool[who * 2 + 1]];
        const old = fact(who, pick(employerBefore)(before), ...beforeRange);
        const now = fact(who, pick(employerAfter)(after), ...afterRange);
        planned.push({
          category: "updated-current",
          question: pick([`Which company does ${name} work for now?`, `Who is ${name}'s current employer?`]),
          answer: after,
          evidence: [now],
        });
        planned.push({
          category: "updated-previous",
          question: `Where did ${name} work before joining ${after}?`,
          answer: before,
          evidence: [old],
        });
      }
    }
  }

  planned.push({
    category: "multi-hop",
    question: `What pets do ${speakers[0]} and ${speakers[1]} have?`,
    answer: petKinds.join("; "),
    evidence: petEvidence,
  });

  // Sessions: dates spread over one to two years from a start in 2021–2023.
  const start = Date.UTC(
    2021 + between(0, 2),
    between(0, 11),
    between(1, 28),
    between(8, 20),
    between(0, 59),
  );
  const sessionDates: Date[] = [];
  let at = start;
  for (let session = 0; session < sessionCount; session++) {
    sessionDates.push(new Date(at));
    at += between(5, 45) * day + between(-180, 180) * 60_000;
  }
  const turnCounts = sessionDates.map(() => between(10, 30));

  // Place every fact in a session within its range, at a turn of its speaker.
  const bySession = new Map<number, PlannedFact[]>();
  for (const entry of facts) {
    const session = between(entry.from, Math.min(entry.to, last));
    bySession.set(session, [...(bySession.get(session) ?? []), entry]);
  }

  const turns: Turn[] = [];
  const used = new Set<string>();
  const fill = (template: string, otherName: string, date: Date) =>
    template.replaceAll("{other}", otherName).replaceAll("{month}", monthNames[date.getUTCMonth()]);
  const fillerFor = (otherName: string, date: Date): string => {
    const roll = random();
    if (roll < 0.3) return fill(pick(replies), otherName, date);
    if (roll < 0.65) return fill(pick(chatter), otherName, date);
    return fill(
      `${pick(fillerParts.start)} ${pick(fillerParts.middle)}${pick(fillerParts.end)}`,
      otherName,
      date,
    );
  };
  for (let session = 0; session < sessionCount; session++) {
    const date = sessionDates[session];
    const sessionFacts = shuffled(bySession.get(session) ?? []);
    const first = between(0, 1) as 0 | 1;
    const count = Math.max(turnCounts[session], sessionFacts.length * 2 + 2);
    const speakerAt = (turn: number) => ((first + turn) % 2) as 0 | 1;
    // Slots for facts: turns of the right speaker, never the opening turn.
    const slots = new Map<number, PlannedFact>();
    for (const entry of sessionFacts) {
      const free = Array.from({ length: count }, (_, turn) => turn).filter(
        (turn) => turn > 0 && speakerAt(turn) === entry.speaker && !slots.has(turn),
      );
      slots.set(pick(free), entry);
    }
    for (let turn = 0; turn < count; turn++) {
      const who = speakerAt(turn);
      const speaker = speakers[who];
      const otherName = speakers[1 - who];
      const id = `c${index}-s${session}-t${turn}`;
      const entry = slots.get(turn);
      let text: string;
      if (entry) {
        text = entry.text;
        entry.id = id;
        entry.sessionDate = date;
      } else if (turn === 0) {
        text = fill(pick(openers), otherName, date);
      } else {
        text = fillerFor(otherName, date);
        // Whole-turn repeats within a conversation would merge into one memory on import.
        for (let attempt = 0; attempt < 20 && used.has(`${speaker}: ${text}`); attempt++)
          text = fillerFor(otherName, date);
        if (used.has(`${speaker}: ${text}`)) text = `${text} (${isoDay(date)})`;
      }
      used.add(`${speaker}: ${text}`);
      turns.push({
        id,
        conversation: index,
        session,
        speaker,
        text,
        at: new Date(date.getTime() + turn * 60_000).toISOString(),
        sessionDate: date.toISOString(),
      });
    }
  }

  const questions: Question[] = planned.map((entry) => ({
    conversation: index,
    category: entry.category,
    question: entry.question,
    answer: typeof entry.answer === "string" ? entry.answer : entry.answer(entry.evidence),
    evidence: entry.evidence.map((evidence) => evidence.id as string),
  }));
  return { index, speakers, turns, questions };
}

export function generateDataset(options: { conversations?: number; seed?: number } = {}): Conversation[] {
  const random = seededRandom(options.seed ?? 20_261_124);
  return Array.from({ length: options.conversations ?? 24 }, (_, index) =>
    generateConversation(index, random),
  );
}
