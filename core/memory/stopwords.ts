/**
 * The one small English stopword list shared by the full-text index (tokenize.ts) and the
 * "meaningful tokens" of relation similarity and ingest filtering (docs/memory.md). One list
 * keeps the two views of a text consistent. Negations ("no", "not", "never") and update
 * markers ("now", "instead") are deliberately absent: they change what a sentence says.
 */

const words = `
a an the and or but if then else so than
of to in on at by for with from as into onto about over under up down out off before after
is are was were be been being am
i me my mine myself we us our ours you your yours he him his she her hers it its
they them their theirs this that these those there here
do does did doing done has have had having
what which who whom whose when where why how
can could would should shall may might will
just also very too only own same other some any each all both few more most such
again further once
s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn wouldn couldn shouldn
i'm i've i'll i'd it's that's there's let's we're you're they're
`;

export const stopwords: ReadonlySet<string> = new Set(words.split(/\s+/).filter((word) => word !== ""));
