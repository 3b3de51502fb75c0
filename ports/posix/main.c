/* SPDX-License-Identifier: Apache-2.0 */
/* POSIX port: the rtbench-core executable. */
#include "rtb/core.h"

int main(int argc, char **argv)
{
	return rtb_main(argc, argv);
}
