<?php

declare(strict_types=1);

namespace Prutor\Engine\Help;

/**
 * Plain explanations for the twenty gcc messages beginners meet most (missing
 * semicolons and braces, undeclared names, missing headers, scanf without &,
 * printf format mismatches, = for ==, missing returns, ...). Each rule is a pattern
 * on gcc's message text and an explanation that may quote the pattern's groups.
 */
final class RuleBasedHelper implements CompileHelper
{
    /** Headers of the functions beginners call without including them. */
    private const HEADERS = [
        'printf' => 'stdio.h', 'scanf' => 'stdio.h', 'puts' => 'stdio.h', 'getchar' => 'stdio.h', 'putchar' => 'stdio.h',
        'fgets' => 'stdio.h', 'malloc' => 'stdlib.h', 'calloc' => 'stdlib.h', 'free' => 'stdlib.h', 'exit' => 'stdlib.h',
        'abs' => 'stdlib.h', 'atoi' => 'stdlib.h', 'rand' => 'stdlib.h', 'qsort' => 'stdlib.h', 'strlen' => 'string.h',
        'strcpy' => 'string.h', 'strcmp' => 'string.h', 'strcat' => 'string.h', 'memset' => 'string.h', 'sqrt' => 'math.h',
        'pow' => 'math.h', 'fabs' => 'math.h', 'floor' => 'math.h', 'ceil' => 'math.h', 'isdigit' => 'ctype.h',
        'isalpha' => 'ctype.h', 'toupper' => 'ctype.h', 'tolower' => 'ctype.h', 'isspace' => 'ctype.h',
    ];

    /** @return list<array{0: string, 1: string|callable}> pattern => explanation */
    private static function rules(): array
    {
        return [
            ['/^expected (?:\',\' or )?\';\' before (.+)$/', 'A semicolon is missing: every statement ends with `;`. Look at the end of the line before {1}; the line gcc names is often the one after the mistake.'],
            ['/^\'(\w+)\' undeclared/', 'The name `{1}` is used but was never declared here. Declare it first (for example `int {1};`), check its spelling and capitals, and check it was not declared inside another block `{ }` that has already ended.'],
            ['/^implicit declaration of function \'(\w+)\'/', [self::class, 'implicitFunction']],
            ['/^expected declaration or statement at end of input/', 'The file ended while a block was still open: a `{` has no matching `}`. Count the braces of each function, loop and if.'],
            ['/^expected \'\)\' before/', 'A closing parenthesis `)` is missing: count the `(` and `)` on this line (in a condition, a call or a printf).'],
            ['/^expected expression before (.+)$/', 'gcc expected a value before {1}: something is missing or extra here, e.g. an empty `x = ;`, a stray `)` or a type name where a value should be.'],
            ['/^\'else\' without a previous \'if\'/', 'This `else` has no `if` right before it. Usual causes: a `;` right after `if (...)`, or an if-block of two statements without braces `{ }`.'],
            ['/^format \'(%[^\']*)\' expects argument of type \'([^\']+\*)\', but argument (\d+) has type \'([^\'*]+)\'/', 'scanf needs the address of the variable to fill: write `&` before it (`scanf("{1}", &x)`). Argument {3} is the value itself ({4}).'],
            ['/^format \'(%[^\']*)\' expects argument of type \'([^\']+)\', but argument (\d+) has type \'([^\']+)\'/', 'The format `{1}` is for a {2}, but argument {3} is a {4}. Use the format that matches the type: `%d` int, `%ld` long, `%f` double in printf (`%lf` in scanf), `%c` char, `%s` string.'],
            ['/^too few arguments to function \'(\w+)\'/', 'The call to `{1}` passes fewer values than the function takes: compare the call with the function\'s definition.'],
            ['/^too many arguments to function \'(\w+)\'/', 'The call to `{1}` passes more values than the function takes: compare the call with the function\'s definition.'],
            ['/^conflicting types for \'(\w+)\'/', '`{1}` is declared twice in different ways, often because it is called before it is defined: put its prototype (its first line followed by `;`) above main, identical to the definition.'],
            ['/^(?:redefinition|redeclaration) of \'([^\']+)\'/', '`{1}` is declared twice in the same place. Give the second one another name, or drop the type to assign to the first (`x = 5;` instead of `int x = 5;`).'],
            ['/^control reaches end of non-void function/', 'This function promises to return a value but can reach its end without `return`. Add a `return` on every path (main ends with `return 0;`).'],
            ['/^suggest parentheses around assignment used as truth value/', 'A condition contains `=` (assignment). To compare, write `==`: `if (x == 5)`.'],
            ['/^\'(\w+)\' (?:is|may be) used uninitialized/', '`{1}` is read before it was given a value, so it holds garbage. Give it a value first (`int {1} = 0;`, or read it with scanf).'],
            ['/undefined reference to [`\'](\w+)\'/', [self::class, 'undefinedReference']],
            ['/^stray \'(.+)\' in program/', 'There is a character C does not accept ({1}), usually a curly quote, a long dash or an invisible space copied from a document or a web page. Retype that part of the line by hand.'],
            ['/^missing terminating (["\']) character/', 'A text or character literal is not closed: every `{1}` needs its closing `{1}` on the same line.'],
            ['/^lvalue required as left operand of assignment/', 'The left side of `=` must be a variable. Did you write `=` where you meant `==`, or put the variable on the right (`x = 5`, not `5 = x`)?'],
            ['/^unknown type name \'(\w+)\'/', [self::class, 'unknownType']],
            ['/^comparison between pointer and integer/', 'A number (or char) is compared with a string or an address. To compare a char, use single quotes (`c == \'a\'`, not `c == "a"`); to compare strings, use strcmp.'],
            ['/^subscripted value is neither array nor pointer/', '`[ ]` is used on a variable that is not an array. Check the variable\'s name and its declaration (`int a[10];`).'],
            ['/^(\S+\.h): No such file or directory/', 'There is no header called `{1}`. Check its spelling: the usual ones are stdio.h, stdlib.h, string.h, math.h, ctype.h, stdbool.h.'],
        ];
    }

    public function explain(array $messages, string $code): array
    {
        $out = [];
        foreach ($messages as $i => $m) {
            // gcc quotes with ‘ ’ in a UTF-8 locale and with ' ' in the C locale
            $text = strtr((string) ($m['text'] ?? ''), ['‘' => "'", '’' => "'"]);
            foreach (self::rules() as [$pattern, $explain]) {
                if (preg_match($pattern, $text, $g)) {
                    $out[$i] = is_callable($explain) ? $explain($g) : self::fill($explain, $g);
                    break;
                }
            }
        }
        return $out;
    }

    /** @param array<int, string> $g */
    private static function fill(string $text, array $g): string
    {
        return (string) preg_replace_callback('/\{(\d)\}/', static fn (array $k): string => $g[(int) $k[1]] ?? '', $text);
    }

    /** @param array<int, string> $g */
    public static function implicitFunction(array $g): string
    {
        $f = $g[1];
        if (isset(self::HEADERS[$f])) {
            return 'gcc does not know `' . $f . '` yet: add `#include <' . self::HEADERS[$f] . '>` at the top of the file.';
        }
        return 'gcc does not know the function `' . $f . '` here. Check its spelling, and define it (or put its prototype) above the function that calls it.';
    }

    /** @param array<int, string> $g */
    public static function undefinedReference(array $g): string
    {
        if ($g[1] === 'main') {
            return 'The program has no `main` function (check the spelling: `int main(void)`, all lower case).';
        }
        return 'The function `' . $g[1] . '` is called but defined nowhere: check its spelling against its definition, and that you wrote its body, not only its prototype.';
    }

    /** @param array<int, string> $g */
    public static function unknownType(array $g): string
    {
        return match ($g[1]) {
            'bool' => '`bool` needs `#include <stdbool.h>` (or use int).',
            'string' => 'C has no `string` type: use a char array, e.g. `char name[100];`.',
            default => '`' . $g[1] . '` is not a type gcc knows here: check its spelling, or the header or struct that should declare it.',
        };
    }
}
