// What ArrayFire generates in front of a reduction kernel for one binary operation.
#define binOp(lhs, rhs) ((lhs) + (rhs))
#define transform(x) ((To)(x))
