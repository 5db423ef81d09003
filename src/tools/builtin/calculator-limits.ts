/**
 * Size limits of the calculator, in a module of their own so that the tool (main thread) can use them without
 * loading mathjs, which only the worker process needs.
 */
export const MAX_EXPRESSION_LENGTH = 1000;
